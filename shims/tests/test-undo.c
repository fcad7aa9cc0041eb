/* Undo of fields that have none of their own: typing and actions are
 * recorded as steps (the fake keeps them as menubusd does, merge keys
 * included), and Undo and Redo, from the keyboard or from the menu
 * (PerformCommand), apply the right edits; payloads that are not the
 * core's are not applied. */
#include "test-support.h"

#define FLAGS (MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO)

typedef enum { BY_KEYBOARD, BY_MENU } Way;

/* One move, and the text it must leave; nothing the field does while
 * applying it is recorded as a new step. */
static void
move_and_expect (Fixture *f, TestWidget *widget, gboolean undo, Way way, const gchar *expected)
{
    guint applied = widget->applied, recorded = fake_calls (f->fake, "RegisterUndo");
    if (way == BY_KEYBOARD) {
        if (undo)
            mb_field_undo (widget->field);
        else
            mb_field_redo (widget->field);
    } else {
        g_autoptr (GError) error = NULL;
        g_autoptr (GVariant) reply = fake_call_client (
            f->fake, "PerformCommand",
            g_variant_new ("(ss@a{sv})", mb_field_context_id (widget->field), undo ? "undo" : "redo",
                           g_variant_new ("a{sv}", NULL)),
            &error);
        g_assert_no_error (error);
    }
    WAIT_FOR (widget->applied == applied + 1, 5000);
    core_settle (f->fake);
    g_assert_cmpstr (widget->text->str, ==, expected);
    g_assert_cmpuint (widget->mismatches, ==, 0);
    g_assert_cmpuint (fake_calls (f->fake, "RegisterUndo"), ==, recorded);
    g_assert_cmpuint (widget->performed, ==, 0);
}

static void
test_undo_and_redo (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, FLAGS, "");
    test_widget_type (widget, "abc");
    test_widget_replace_all (widget, "Make Uppercase", "ABC");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 4, 5000);
    /* Typing merges into one step: its merge key is the same each time. */
    g_autoptr (GPtrArray) steps = fake_args_of (f->fake, "RegisterUndo");
    const gchar *key0 = NULL, *key2 = NULL, *name = NULL;
    g_autoptr (GVariant) options0 = g_variant_get_child_value (steps->pdata[0], 4);
    g_autoptr (GVariant) options2 = g_variant_get_child_value (steps->pdata[2], 4);
    g_assert_true (g_variant_lookup (options0, "merge-key", "&s", &key0));
    g_assert_true (g_variant_lookup (options2, "merge-key", "&s", &key2));
    g_assert_cmpstr (key0, ==, key2);
    g_variant_get_child (steps->pdata[3], 1, "&s", &name);
    g_assert_cmpstr (name, ==, "Make Uppercase");

    move_and_expect (f, widget, TRUE, BY_KEYBOARD, "abc");
    move_and_expect (f, widget, TRUE, BY_MENU, "");
    move_and_expect (f, widget, FALSE, BY_MENU, "abc");
    move_and_expect (f, widget, FALSE, BY_KEYBOARD, "ABC");
    move_and_expect (f, widget, TRUE, BY_MENU, "abc");

    /* New typing drops what could be redone. */
    test_widget_type (widget, "d");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 5, 5000);
    guint applied = widget->applied;
    mb_field_redo (widget->field);
    core_settle (f->fake);
    g_assert_cmpuint (widget->applied, ==, applied);
    g_assert_cmpstr (widget->text->str, ==, "abcd");
    move_and_expect (f, widget, TRUE, BY_KEYBOARD, "abc");
    move_and_expect (f, widget, TRUE, BY_KEYBOARD, "");
}

/* BackSpace at the caret merges with the typing before it: one step. */
static void
test_backspace_merges (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, FLAGS, "");
    test_widget_type (widget, "hello");
    for (guint i = 0; i < 3; i++) {
        guint caret = widget->end;
        gchar deleted[2] = { widget->text->str[caret - 1], 0 };
        g_string_truncate (widget->text, caret - 1);
        MbEdit edit = { FALSE, caret - 1, deleted };
        mb_field_record (widget->field, &edit);
        widget->start = widget->end = caret - 1;
        mb_field_changed (widget->field);
    }
    g_assert_cmpstr (widget->text->str, ==, "he");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 8, 5000);
    move_and_expect (f, widget, TRUE, BY_KEYBOARD, "");
    move_and_expect (f, widget, FALSE, BY_KEYBOARD, "he");
}

/* Answers to Undo that are not the core's payloads, or not Undo's reply:
 * nothing is applied, the text stays. */
static void
test_foreign_payloads (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, FLAGS, "");
    test_widget_type (widget, "abc");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 3, 5000);
    g_autoptr (GBytes) garbage = g_bytes_new_static ("x", 1);
    g_autoptr (GBytes) short_header = g_bytes_new_static ("d\1\0", 3);
    g_autoptr (GBytes) too_long = undo_payload ('d', 0, "abc", 300);
    g_autoptr (GBytes) bad_utf8 = undo_payload ('i', 0, "\xff\xfe", 2);
    g_autoptr (GBytes) bad_op = undo_payload ('x', 0, "abc", 3);
    g_autoptr (GBytes) good = undo_payload ('d', 0, "abc", 3);
    GBytes *mixed[] = { good, garbage };
    struct {
        const gchar *name;
        GVariant *body;
    } answers[] = {
        { "garbage", undo_reply (&garbage, 1) },
        { "a header cut short", undo_reply (&short_header, 1) },
        { "a length past the end", undo_reply (&too_long, 1) },
        { "invalid UTF-8", undo_reply (&bad_utf8, 1) },
        { "an unknown operation", undo_reply (&bad_op, 1) },
        { "a good payload then garbage", undo_reply (mixed, 2) },
        { "(s)", g_variant_new ("(s)", "Typing") },
        { "(sas)", g_variant_new_parsed ("('Typing', ['abc'])") },
        { "()", NULL },
    };
    for (guint i = 0; i < G_N_ELEMENTS (answers); i++) {
        g_test_message ("Undo answered with %s", answers[i].name);
        fake_reply_body (f->fake, "Undo", answers[i].body);
        mb_field_undo (widget->field);
        core_settle (f->fake);
        g_assert_cmpuint (widget->applied, ==, 0);
        g_assert_cmpstr (widget->text->str, ==, "abc");
    }
    fake_error (f->fake, "Undo", "org.menubus.MenuBus1.Error.NothingToUndo");
    mb_field_undo (widget->field);
    core_settle (f->fake);
    g_assert_cmpuint (widget->applied, ==, 0);
    /* The step menubusd keeps is still there to undo. */
    fake_answer (f->fake, "Undo");
    move_and_expect (f, widget, TRUE, BY_KEYBOARD, "");
}

void
add_undo_tests (void)
{
    g_test_add ("/undo/undo-and-redo-apply-the-right-edits", Fixture, NULL, fixture_set_up, test_undo_and_redo,
                fixture_tear_down);
    g_test_add ("/undo/backspace-merges", Fixture, NULL, fixture_set_up, test_backspace_merges, fixture_tear_down);
    g_test_add ("/undo/foreign-payloads-are-not-applied", Fixture, NULL, fixture_set_up, test_foreign_payloads,
                fixture_tear_down);
}
