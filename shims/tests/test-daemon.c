/* menubusd coming and going: gone mid-call and back, replaced by another
 * owner mid-call, never there; and the shim turned off for a program. */
#include "test-support.h"

#define TEXT "hello world"

/* menubusd disconnects while a menu is open and calls are out, then
 * comes back: open menus hear it went, no menu can be asked meanwhile,
 * and the focused field is published again with its selection. */
static void
test_vanishes_mid_call_and_returns (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, TEXT);
    const gchar *context = mb_field_context_id (widget->field);
    MenuLog *shown = fixture_present (f, widget, NULL);
    WAIT_FOR (fake_menus (f->fake) == 1 && fake_calls (f->fake, "GetLayout") >= 1, 5000);
    core_settle (f->fake);
    fake_hold (f->fake, "UpdateSelection");
    fake_hold (f->fake, "GetEditMenu");
    fake_hold (f->fake, "PresentMenu");
    test_widget_select (widget, 0, 5);
    WAIT_FOR (fake_held (f->fake, "UpdateSelection") == 1, 5000);
    MenuLog *waiting = fixture_present (f, widget, NULL);
    WAIT_FOR (fake_held (f->fake, "GetEditMenu") + fake_held (f->fake, "PresentMenu") >= 1, 5000);

    guint ups = daemon_ups, downs = daemon_downs;
    fake_daemon_free (f->fake);
    f->fake = NULL;
    WAIT_FOR (mb_shim_daemon () == NULL, 5000);
    WAIT_FOR (shown->nulls == 1, 5000);
    g_assert_cmpuint (daemon_downs, ==, downs + 1);
    g_assert_cmpuint (shown->wrong_types + waiting->wrong_types, ==, 0);
    MenuLog *none = fixture_present (f, widget, NULL);
    g_assert_null (none->menu);
    menu_log_close (shown);
    menu_log_close (waiting);

    f->fake = fake_daemon_new (FALSE);
    const gchar *text = NULL;
    WAIT_FOR (fake_has_context (f->fake, context) && fake_selection (f->fake, context) &&
                  g_variant_lookup (fake_selection (f->fake, context), "text", "&s", &text),
              5000);
    g_assert_cmpstr (text, ==, "hello");
    g_assert_cmpuint (fake_calls (f->fake, "Register"), ==, 1);
    g_assert_cmpuint (daemon_ups, ==, ups + 1);
    assert_menu_shows_items (f, widget);
    assert_widget_untouched (widget, TEXT);
}

/* Another menubusd takes the name while calls to the first are out; the
 * first answers after: the field is published to the new one, the old
 * owner's answers do no harm and its calls are refused. */
static void
test_owner_replaced_mid_call (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, TEXT);
    const gchar *context = mb_field_context_id (widget->field);
    FakeDaemon *first = f->fake;
    fake_hold (first, "GetEditMenu");
    fake_hold (first, "PresentMenu");
    fake_hold (first, "UpdateSelection");
    test_widget_select (widget, 0, 5);
    MenuLog *log = fixture_present (f, widget, NULL);
    WAIT_FOR (fake_held (first, "GetEditMenu") + fake_held (first, "PresentMenu") >= 1, 5000);

    FakeDaemon *second = fake_daemon_new (TRUE);
    f->fake = second;
    WAIT_FOR (g_strcmp0 (mb_shim_daemon (), fake_daemon_name (second)) == 0, 5000);
    g_assert_false (fake_daemon_owns_name (first));
    WAIT_FOR (fake_has_context (second, context) && fake_selection (second, context), 5000);

    const gchar *methods[] = { "GetEditMenu", "PresentMenu", "UpdateSelection" };
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++) {
        fake_answer (first, methods[i]);
        fake_release (first, methods[i]);
    }
    core_settle (first);
    core_settle (second);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    menu_log_close (log);

    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = fake_call_client (
        first, "PerformCommand", g_variant_new ("(ss@a{sv})", context, "cut", g_variant_new ("a{sv}", NULL)), &error);
    g_assert_null (reply);
    g_assert_true (g_dbus_error_is_remote_error (error));
    g_autofree gchar *name = g_dbus_error_get_remote_error (error);
    g_assert_cmpstr (name, ==, MB_ERROR_ACCESS_DENIED);
    fake_daemon_free (first);
    assert_menu_shows_items (f, widget);
    assert_widget_untouched (widget, TEXT);
}

/* No menubusd at all: nothing waits, menus are not asked for, edits pass
 * through; once it comes, the focused field is published. */
static void
test_absent_daemon_passes_through (Fixture *f, gconstpointer data)
{
    fake_daemon_free (f->fake);
    f->fake = NULL;
    WAIT_FOR (mb_shim_daemon () == NULL, 5000);
    TestWidget *widget = fixture_widget (f, MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO, "");
    mb_field_focused (widget->field);
    test_widget_type (widget, "abc");
    test_widget_select (widget, 0, 2);
    gint64 start = g_get_monotonic_time ();
    GVariant *items = NULL;
    MenuLog *log = fixture_present (f, widget, &items);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 20000);
    g_assert_null (log->menu);
    g_assert_null (items);
    mb_field_undo (widget->field);
    loop_for (50);
    g_assert_cmpuint (widget->applied, ==, 0);
    g_assert_cmpstr (widget->text->str, ==, "abc");

    f->fake = fake_daemon_new (FALSE);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (widget->field)), 5000);
    assert_menu_shows_items (f, widget);
}

/* In a subprocess (the core is turned on once a process): turned off, the
 * core opens no connection and sends nothing, whatever it is asked. */
static void
turned_off_child (void)
{
    FakeDaemon *fake = fake_daemon_new (FALSE);
    g_assert_false (mb_shim_enabled ("test"));
    g_assert_false (mb_shim_enabled ("test"));
    TestWidget *widget = test_widget_new (MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO, "");
    mb_field_focused (widget->field);
    test_widget_type (widget, "abc");
    test_widget_select (widget, 0, 2);
    MenuLog log = { 0 };
    GVariant *items = NULL;
    g_assert_null (mb_menu_present (widget->field, menu_log_changed, &log, &items));
    g_assert_null (items);
    mb_field_undo (widget->field);
    loop_for (200);
    g_assert_null (mb_shim_connection ());
    g_assert_null (mb_shim_daemon ());
    g_assert_cmpuint (fake_all_calls (fake), ==, 0);
    g_assert_cmpuint (log.calls, ==, 0);
    test_widget_free (widget);
    fake_daemon_free (fake);
}

static void
test_disabled_by_environment (void)
{
    if (g_test_subprocess ()) {
        g_setenv ("MENUBUS_DISABLE", "1", TRUE);
        turned_off_child ();
        return;
    }
    g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
}

/* main lists this program's name in [Exclude] Apps of the test's
 * menubus/integration.conf. */
static void
test_excluded_by_config (void)
{
    if (g_test_subprocess ()) {
        g_set_prgname (CORE_TEST_EXCLUDED_NAME);
        turned_off_child ();
        return;
    }
    g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
}

/* MENUBUS_DISABLE=0 leaves it on. */
static void
test_disable_zero_keeps_it_on (void)
{
    if (g_test_subprocess ()) {
        g_setenv ("MENUBUS_DISABLE", "0", TRUE);
        g_assert_true (mb_shim_enabled ("test"));
        WAIT_FOR (mb_shim_connection () != NULL, 5000);
        return;
    }
    g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
}

void
add_daemon_tests (void)
{
    g_test_add ("/daemon/vanishes-mid-call-and-returns", Fixture, NULL, fixture_set_up,
                test_vanishes_mid_call_and_returns, fixture_tear_down);
    g_test_add ("/daemon/owner-replaced-mid-call", Fixture, NULL, fixture_set_up, test_owner_replaced_mid_call,
                fixture_tear_down);
    g_test_add ("/daemon/absent-passes-through", Fixture, NULL, fixture_set_up, test_absent_daemon_passes_through,
                fixture_tear_down);
    g_test_add_func ("/shim/disabled-by-environment", test_disabled_by_environment);
    g_test_add_func ("/shim/excluded-by-config", test_excluded_by_config);
    g_test_add_func ("/shim/disable-zero-keeps-it-on", test_disable_zero_keeps_it_on);
}
