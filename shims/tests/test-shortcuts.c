/* Provider shortcuts: a key the app let pass chooses the item of the
 * field's edit menu that has it as its shortcut, for the selection the key
 * was pressed on, and nothing else. */
#include "test-support.h"

#define EDITABLE (MB_FIELD_EDITABLE | MB_FIELD_HAS_CONTENT)
#define PROVIDER "menubus:provider:org.example.Shout"

/* An edit menu with Copy (its own shortcut), a provider's item with
 * <Control><Alt>u, and a disabled one with <Control><Alt>d. */
static GVariant *
shortcut_items (void)
{
    GVariantBuilder items;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    g_variant_builder_add_parsed (&items, "('menubus:copy', '', {'title': <'Copy'>, 'shortcut': <'<Control>c'>})");
    g_variant_builder_add_parsed (&items, "('menubus:services', '', {'type': <'menu'>, 'title': <'Services'>})");
    g_variant_builder_add_parsed (&items, "(%s, 'menubus:services', {'title': <'Shout'>, 'shortcut': <'<Control><Alt>u'>})",
                                  PROVIDER);
    g_variant_builder_add_parsed (&items, "('menubus:provider:off', '', {'title': <'Off'>, 'shortcut': <'<Control><Alt>d'>,"
                                          " 'attributes': <['disabled']>})");
    return g_variant_builder_end (&items);
}

static const gchar *
activated_item (FakeDaemon *fake)
{
    static gchar item[256];
    g_autoptr (GVariant) args = fake_last_args (fake, "Activate");
    const gchar *id = "";
    if (args)
        g_variant_get (args, "(&s@a{sv})", &id, NULL);
    g_strlcpy (item, id, sizeof item);
    return item;
}

/* Nothing read ahead (no menu opened yet): the key asks GetEditMenu,
 * stays unused meanwhile, and the item is chosen when the answer comes,
 * with the key's timestamp; GTK's spelling (<Primary>, a capital letter)
 * is the same key. */
static void
test_asks_then_chooses (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, shortcut_items ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 6, 11);
    g_assert_false (mb_field_shortcut (widget->field, "<Primary><Alt>U", 77));
    WAIT_FOR (fake_calls (f->fake, "Activate") == 1, 5000);
    g_assert_cmpstr (activated_item (f->fake), ==, PROVIDER);
    g_autoptr (GVariant) args = fake_last_args (f->fake, "Activate");
    g_autoptr (GVariant) platform = NULL;
    guint32 timestamp = 0;
    g_variant_get (args, "(&s@a{sv})", NULL, &platform);
    g_assert_true (g_variant_lookup (platform, "timestamp", "u", &timestamp));
    g_assert_cmpuint (timestamp, ==, 77);
    /* The selection went before the question: menubusd composed for it. */
    GVariant *selection = fake_selection (f->fake, mb_field_context_id (widget->field)); /* borrowed */
    const gchar *text = NULL;
    g_assert_true (g_variant_lookup (selection, "text", "&s", &text));
    g_assert_cmpstr (text, ==, "world");
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "Activate"), ==, 1);
    g_assert_cmpuint (fake_calls (f->fake, "Dismiss"), ==, 0);
    assert_widget_untouched (widget, "hello world");
}

/* With the menu read ahead for this very selection, the key is used at
 * once (TRUE) and the item chosen without another GetEditMenu. */
static void
test_read_ahead_chooses_at_once (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, shortcut_items ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    /* Reading ahead starts with the process's first menu. */
    GVariant *shown = NULL;
    MenuLog *log = fixture_present (f, widget, &shown);
    if (!items_have (shown, PROVIDER))
        WAIT_FOR (items_have (log->last, PROVIDER), 5000);
    g_clear_pointer (&shown, g_variant_unref);
    menu_log_close (log);
    core_settle (f->fake);
    guint asked = fake_calls (f->fake, "GetEditMenu");
    test_widget_select (widget, 0, 5);
    WAIT_FOR (fake_calls (f->fake, "GetEditMenu") > asked, 5000);
    core_settle (f->fake);
    asked = fake_calls (f->fake, "GetEditMenu");
    guint activated = fake_calls (f->fake, "Activate");
    g_assert_true (mb_field_shortcut (widget->field, "<Control><Alt>u", 5));
    WAIT_FOR (fake_calls (f->fake, "Activate") == activated + 1, 5000);
    g_assert_cmpstr (activated_item (f->fake), ==, PROVIDER);
    g_assert_cmpuint (fake_calls (f->fake, "GetEditMenu"), ==, asked);
}

/* Typing keys, keys no item has, a disabled item's key, and any key with
 * no selection stay the app's: FALSE, and nothing is chosen. */
static void
test_other_keys_stay_unused (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, shortcut_items ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    core_settle (f->fake);
    guint asked = fake_calls (f->fake, "GetEditMenu");
    /* A caret, no selection: not even asked. */
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Alt>u", 1));
    test_widget_select (widget, 0, 5);
    /* Typing (no Control, Alt or Super), and what is no accelerator. */
    g_assert_false (mb_field_shortcut (widget->field, "u", 1));
    g_assert_false (mb_field_shortcut (widget->field, "<Shift>u", 1));
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Alt>", 1));
    g_assert_false (mb_field_shortcut (widget->field, "<Bogus>u", 1));
    g_assert_false (mb_field_shortcut (widget->field, NULL, 1));
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "GetEditMenu"), ==, asked);
    /* Asked, but no item has the key, or only a disabled one, or it
     * needs Shift too. */
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Alt>q", 1));
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Alt>d", 1));
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Shift><Alt>u", 1));
    WAIT_FOR (fake_calls (f->fake, "GetEditMenu") >= asked + 3, 5000);
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "PresentMenu"), ==, 0);
    g_assert_cmpuint (fake_calls (f->fake, "Activate"), ==, 0);
}

/* The selection changed while menubusd was asked: the answer was for
 * another selection, and nothing is chosen. */
static void
test_selection_moved_before_answer (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, shortcut_items ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 0, 5);
    fake_hold (f->fake, "GetEditMenu");
    g_assert_false (mb_field_shortcut (widget->field, "<Control><Alt>u", 1));
    WAIT_FOR (fake_held (f->fake, "GetEditMenu") == 1, 5000);
    test_widget_select (widget, 6, 11);
    core_settle (f->fake);
    fake_answer (f->fake, "GetEditMenu");
    fake_release (f->fake, "GetEditMenu");
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "PresentMenu"), ==, 0);
    g_assert_cmpuint (fake_calls (f->fake, "Activate"), ==, 0);
}

/* Pressed twice (or held) before the provider's answer changed the
 * selection: the item is chosen once, whether menubusd was asked or the
 * menu read ahead; another selection takes it again. */
static void
test_pressed_twice_chooses_once (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, shortcut_items ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 6, 11);
    fake_hold (f->fake, "GetEditMenu");
    mb_field_shortcut (widget->field, "<Control><Alt>u", 1);
    mb_field_shortcut (widget->field, "<Control><Alt>u", 2);
    WAIT_FOR (fake_held (f->fake, "GetEditMenu") >= 1, 5000);
    fake_answer (f->fake, "GetEditMenu");
    fake_release (f->fake, "GetEditMenu");
    WAIT_FOR (fake_calls (f->fake, "Activate") == 1, 5000);
    core_settle (f->fake);
    mb_field_shortcut (widget->field, "<Control><Alt>u", 3);
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "Activate"), ==, 1);
    test_widget_select (widget, 0, 5);
    core_settle (f->fake);
    mb_field_shortcut (widget->field, "<Control><Alt>u", 4);
    WAIT_FOR (fake_calls (f->fake, "Activate") == 2, 5000);
}

void
add_shortcut_tests (void)
{
    g_test_add ("/shortcut/asks-then-chooses", Fixture, NULL, fixture_set_up, test_asks_then_chooses, fixture_tear_down);
    g_test_add ("/shortcut/read-ahead-chooses-at-once", Fixture, NULL, fixture_set_up, test_read_ahead_chooses_at_once,
                fixture_tear_down);
    g_test_add ("/shortcut/other-keys-stay-unused", Fixture, NULL, fixture_set_up, test_other_keys_stay_unused,
                fixture_tear_down);
    g_test_add ("/shortcut/selection-moved-before-answer", Fixture, NULL, fixture_set_up,
                test_selection_moved_before_answer, fixture_tear_down);
    g_test_add ("/shortcut/pressed-twice-chooses-once", Fixture, NULL, fixture_set_up, test_pressed_twice_chooses_once,
                fixture_tear_down);
}
