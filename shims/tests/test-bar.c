/* The edit bar: a selection made with the pointer that stands still shows
 * the bar with the edit menu's commands and providers; it goes when the
 * selection changes, the focus goes or the toolkit dismisses it; an item
 * chosen from it reaches menubusd as from the menu. */
#include "test-support.h"

#define EDITABLE (MB_FIELD_EDITABLE | MB_FIELD_HAS_CONTENT)
#define SHOUT "menubus:provider:org.example.Shout"

/* An edit menu as menubusd composes it: Undo, a section with Cut, Copy,
 * Paste (disabled) and Select All, Bold in Format, a provider at the top
 * and one under Services. */
static GVariant *
edit_menu (void)
{
    GVariantBuilder items;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    const gchar *elements[] = {
        "('menubus:undo', '', {'title': <'Undo'>, 'command': <'undo'>})",
        "('menubus:section:1', '', {'type': <'menu'>, 'options': <['inline']>})",
        "('menubus:select-all', 'menubus:section:1', {'title': <'Select All'>, 'command': <'select-all'>})",
        "('menubus:cut', 'menubus:section:1', {'title': <'Cut'>, 'command': <'cut'>})",
        "('menubus:copy', 'menubus:section:1', {'title': <'Copy'>, 'command': <'copy'>})",
        "('menubus:paste', 'menubus:section:1', {'title': <'Paste'>, 'command': <'paste'>, 'attributes': <['disabled']>})",
        "('menubus:format', '', {'type': <'menu'>, 'title': <'Format'>})",
        "('menubus:bold', 'menubus:format', {'title': <'Bold'>, 'command': <'bold'>})",
        "('" SHOUT "', '', {'title': <'Shout'>})",
        "('menubus:services', '', {'type': <'menu'>, 'title': <'Services'>})",
        "('menubus:provider:org.example.Deep', 'menubus:services', {'title': <'Deep'>})",
    };
    for (guint i = 0; i < G_N_ELEMENTS (elements); i++)
        g_variant_builder_add_value (&items, g_variant_new_parsed (elements[i]));
    return g_variant_builder_end (&items);
}

static gchar *
bar_ids (TestWidget *widget)
{
    GString *ids = g_string_new (NULL);
    gsize n = widget->bar ? g_variant_n_children (widget->bar) : 0;
    for (gsize i = 0; i < n; i++) {
        const gchar *id, *parent;
        g_variant_get_child (widget->bar, i, "(&s&s@a{sv})", &id, &parent, NULL);
        g_string_append_printf (ids, "%s%s%s", i ? " " : "", id, *parent ? "(nested!)" : "");
    }
    return g_string_free (ids, FALSE);
}

/* Shown with Cut and Copy in the bar's order, then the provider at the
 * top; not Undo, a disabled Paste, Select All, Format's Bold, or Services'. */
static void
test_pointer_selection_shows_bar (Fixture *f, gconstpointer data)
{
    g_assert_true (mb_shim_edit_bar_enabled ());
    fake_set_items (f->fake, edit_menu ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 6, 11);
    mb_field_pointer_selected (widget->field);
    WAIT_FOR (widget->bars_shown == 1, 5000);
    g_autofree gchar *ids = bar_ids (widget);
    g_assert_cmpstr (ids, ==, "menubus:cut menubus:copy " SHOUT);
    /* Choosing from it: activated for the selection, and the bar goes. */
    mb_field_choose (widget->field, SHOUT, 9);
    WAIT_FOR (fake_calls (f->fake, "Activate") == 1, 5000);
    g_assert_cmpuint (widget->bars_hidden, ==, 1);
    g_assert_null (widget->bar);
}

/* A caret is no selection: no bar; nor while the selection still moves
 * within the wait. */
static void
test_no_bar_for_a_caret_or_a_moving_selection (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, edit_menu ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 3, 3);
    mb_field_pointer_selected (widget->field);
    test_widget_select (widget, 0, 5);
    mb_field_pointer_selected (widget->field);
    test_widget_select (widget, 0, 4); /* moved before it stood still */
    core_settle (f->fake);
    loop_for (200);
    g_assert_cmpuint (widget->bars_shown, ==, 0);
}

/* The bar goes when the selection changes, when the field loses the focus,
 * and when the toolkit dismisses it; text changed elsewhere with the same
 * selection keeps it. */
static void
test_bar_goes_with_its_selection (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, edit_menu ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 0, 5);
    mb_field_pointer_selected (widget->field);
    WAIT_FOR (widget->bars_shown == 1, 5000);
    mb_field_changed (widget->field); /* same selection */
    g_assert_cmpuint (widget->bars_hidden, ==, 0);
    test_widget_select (widget, 0, 3);
    g_assert_cmpuint (widget->bars_hidden, ==, 1);

    test_widget_select (widget, 0, 5);
    mb_field_pointer_selected (widget->field);
    WAIT_FOR (widget->bars_shown == 2, 5000);
    mb_field_blurred (widget->field);
    g_assert_cmpuint (widget->bars_hidden, ==, 2);

    mb_field_focused (widget->field);
    mb_field_pointer_selected (widget->field);
    WAIT_FOR (widget->bars_shown == 3, 5000);
    mb_field_dismiss_bar (widget->field);
    g_assert_cmpuint (widget->bars_hidden, ==, 3);
    mb_field_dismiss_bar (widget->field); /* once */
    g_assert_cmpuint (widget->bars_hidden, ==, 3);
}

/* The answer came after the selection moved: no bar for a selection that
 * is no longer there. */
static void
test_late_answer_shows_no_bar (Fixture *f, gconstpointer data)
{
    fake_set_items (f->fake, edit_menu ());
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    test_widget_select (widget, 0, 5);
    fake_hold (f->fake, "GetEditMenu");
    mb_field_pointer_selected (widget->field);
    WAIT_FOR (fake_held (f->fake, "GetEditMenu") >= 1, 5000);
    test_widget_select (widget, 6, 11);
    fake_answer (f->fake, "GetEditMenu");
    fake_release (f->fake, "GetEditMenu");
    core_settle (f->fake);
    g_assert_cmpuint (widget->bars_shown, ==, 0);
}

void
add_bar_tests (void)
{
    g_test_add ("/bar/pointer-selection-shows-bar", Fixture, NULL, fixture_set_up, test_pointer_selection_shows_bar,
                fixture_tear_down);
    g_test_add ("/bar/no-bar-for-a-caret-or-a-moving-selection", Fixture, NULL, fixture_set_up,
                test_no_bar_for_a_caret_or_a_moving_selection, fixture_tear_down);
    g_test_add ("/bar/goes-with-its-selection", Fixture, NULL, fixture_set_up, test_bar_goes_with_its_selection,
                fixture_tear_down);
    g_test_add ("/bar/late-answer-shows-no-bar", Fixture, NULL, fixture_set_up, test_late_answer_shows_no_bar,
                fixture_tear_down);
}
