/* Menus as menubusd should answer them, and as it answers late: opening
 * one never waits, and items that come later reach `changed`. */
#include "test-support.h"

#define EDITABLE (MB_FIELD_EDITABLE)

/* A bound on a call that must not wait on D-Bus: not a benchmark. A call
 * that waited for the old 50 ms deadline took 46 ms. */
#define NO_WAIT_US 20000

static gint64
timed_present (Fixture *fixture, TestWidget *widget, MenuLog **log, GVariant **items)
{
    gint64 start = g_get_monotonic_time ();
    *log = fixture_present (fixture, widget, items);
    return g_get_monotonic_time () - start;
}

/* menubusd never answers while the menu opens: mb_menu_present returns at
 * once, with no items (nothing was read ahead), and the items reach
 * `changed` when they come. */
static void
test_present_does_not_wait (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    fake_hold (f->fake, "GetEditMenu");
    fake_hold (f->fake, "PresentMenu");
    MenuLog *log;
    GVariant *items = NULL;
    gint64 took = timed_present (f, widget, &log, &items);
    g_test_message ("mb_menu_present took %" G_GINT64_FORMAT " us with menubusd silent", took);
    g_assert_cmpint (took, <, NO_WAIT_US);
    g_assert_nonnull (log->menu);
    g_assert_null (items);
    g_assert_cmpuint (log->calls, ==, 0);

    WAIT_FOR (fake_held (f->fake, "GetEditMenu") + fake_held (f->fake, "PresentMenu") > 0, 5000);
    fake_answer (f->fake, "GetEditMenu");
    fake_answer (f->fake, "PresentMenu");
    fake_release (f->fake, "GetEditMenu");
    fake_release (f->fake, "PresentMenu");
    WAIT_FOR (items_have (log->last, mine), 5000);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    g_assert_cmpuint (log->nulls, ==, 0);
    menu_log_close (log);
    assert_widget_untouched (widget, "hello world");
}

/* Answers that come after the old deadline (50 ms) still fill the menu. */
static void
test_late_items_reach_changed (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    fake_delay (f->fake, "GetEditMenu", 300);
    fake_delay (f->fake, "PresentMenu", 300);
    fake_delay (f->fake, "GetLayout", 300);
    MenuLog *log;
    gint64 took = timed_present (f, widget, &log, NULL);
    g_assert_cmpint (took, <, NO_WAIT_US);
    WAIT_FOR (items_have (log->last, mine), 5000);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    menu_log_close (log);
}

/* Once the selection has stood still, the edit menu is read ahead, and a
 * menu opened then has MenuBus's items at once. */
static void
test_read_ahead_shows_at_once (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    /* Reading ahead starts with the process's first menu. */
    assert_menu_shows_items (f, widget);
    guint asked = fake_calls (f->fake, "GetEditMenu");
    test_widget_select (widget, 0, 5);
    WAIT_FOR (fake_calls (f->fake, "GetEditMenu") > asked, 5000);
    core_settle (f->fake);
    MenuLog *log;
    GVariant *items = NULL;
    gint64 took = timed_present (f, widget, &log, &items);
    g_assert_cmpint (took, <, NO_WAIT_US);
    g_assert_true (items_have (items, mine));
    g_variant_unref (items);
    menu_log_close (log);
}

/* An item chosen in the open menu is activated on its presentation. */
static void
test_chosen_item_is_activated (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    GVariant *items = NULL;
    MenuLog *log = fixture_present (f, widget, &items);
    if (!items_have (items, mine))
        WAIT_FOR (items_have (log->last, mine), 5000);
    g_clear_pointer (&items, g_variant_unref);
    WAIT_FOR (fake_menus (f->fake) == 1, 5000);
    mb_menu_activate (log->menu, mine, 42);
    WAIT_FOR (fake_calls (f->fake, "Activate") == 1, 5000);
    g_autoptr (GVariant) args = fake_last_args (f->fake, "Activate");
    const gchar *item;
    guint32 timestamp = 0;
    g_autoptr (GVariant) platform = NULL;
    g_variant_get (args, "(&s@a{sv})", &item, &platform);
    g_assert_cmpstr (item, ==, mine);
    g_assert_true (g_variant_lookup (platform, "timestamp", "u", &timestamp));
    g_assert_cmpuint (timestamp, ==, 42);
    menu_log_close (log);
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "Dismiss"), ==, 0);
}

/* Chosen from what the menu showed before its presentation came: the
 * choice reaches menubusd when it comes. */
static void
test_item_chosen_before_presentation (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    /* The process's first menu turns reading ahead on; then this one has
     * items at once while its presentation is held. */
    assert_menu_shows_items (f, widget);
    guint asked = fake_calls (f->fake, "GetEditMenu");
    test_widget_select (widget, 0, 5);
    WAIT_FOR (fake_calls (f->fake, "GetEditMenu") > asked, 5000);
    core_settle (f->fake);
    fake_hold (f->fake, "PresentMenu");
    GVariant *items = NULL;
    MenuLog *log = fixture_present (f, widget, &items);
    g_assert_true (items_have (items, mine));
    g_variant_unref (items);
    mb_menu_activate (log->menu, mine, 7);
    menu_log_close (log);
    WAIT_FOR (fake_held (f->fake, "PresentMenu") == 1, 5000);
    fake_answer (f->fake, "PresentMenu");
    fake_release (f->fake, "PresentMenu");
    WAIT_FOR (fake_calls (f->fake, "Activate") == 1, 5000);
    g_autoptr (GVariant) args = fake_last_args (f->fake, "Activate");
    const gchar *item;
    g_variant_get (args, "(&s@a{sv})", &item, NULL);
    g_assert_cmpstr (item, ==, mine);
}

/* The toolkit closes the menu with nothing chosen: the presentation is
 * dismissed, and `changed` hears nothing after (even a LayoutChanged). */
static void
test_close_dismisses (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    GVariant *items = NULL;
    MenuLog *log = fixture_present (f, widget, &items);
    g_clear_pointer (&items, g_variant_unref);
    WAIT_FOR (fake_menus (f->fake) == 1 && fake_calls (f->fake, "GetLayout") >= 1, 5000);
    core_settle (f->fake);
    menu_log_close (log);
    g_autoptr (GVariant) layout = fake_default_items ("another");
    fake_emit (f->fake, 0, "LayoutChanged", g_variant_new ("(u@a(ssa{sv}))", 99, layout));
    WAIT_FOR (fake_calls (f->fake, "Dismiss") == 1, 5000);
    core_settle (f->fake);
    g_assert_cmpuint (log->after_close, ==, 0);
}

/* menubusd changes the open menu, then closes it: `changed` hears both. */
static void
test_menubusd_changes_and_closes (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, EDITABLE, "hello world");
    g_autofree gchar *mine = context_item (widget);
    GVariant *items = NULL;
    MenuLog *log = fixture_present (f, widget, &items);
    g_clear_pointer (&items, g_variant_unref);
    WAIT_FOR (fake_menus (f->fake) == 1 && fake_calls (f->fake, "GetLayout") >= 1, 5000);
    core_settle (f->fake);
    g_autoptr (GVariant) layout = fake_default_items ("changed-later");
    fake_emit (f->fake, 0, "LayoutChanged", g_variant_new ("(u@a(ssa{sv}))", 99, layout));
    WAIT_FOR (items_have (log->last, "ctx:changed-later"), 5000);
    fake_emit (f->fake, 0, "Closed", NULL);
    WAIT_FOR (log->nulls == 1, 5000);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    menu_log_close (log);
}

void
add_menu_tests (void)
{
    g_test_add ("/menu/present-does-not-wait", Fixture, NULL, fixture_set_up, test_present_does_not_wait,
                fixture_tear_down);
    g_test_add ("/menu/late-items-reach-changed", Fixture, NULL, fixture_set_up, test_late_items_reach_changed,
                fixture_tear_down);
    g_test_add ("/menu/read-ahead-shows-at-once", Fixture, NULL, fixture_set_up, test_read_ahead_shows_at_once,
                fixture_tear_down);
    g_test_add ("/menu/chosen-item-is-activated", Fixture, NULL, fixture_set_up, test_chosen_item_is_activated,
                fixture_tear_down);
    g_test_add ("/menu/item-chosen-before-presentation", Fixture, NULL, fixture_set_up,
                test_item_chosen_before_presentation, fixture_tear_down);
    g_test_add ("/menu/close-dismisses", Fixture, NULL, fixture_set_up, test_close_dismisses, fixture_tear_down);
    g_test_add ("/menu/menubusd-changes-and-closes", Fixture, NULL, fixture_set_up, test_menubusd_changes_and_closes,
                fixture_tear_down);
}
