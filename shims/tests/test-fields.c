/* Fields as contexts: what a focused field publishes, selection updates
 * coalesced, the cap on contexts, and the Client object menubusd calls. */
#include "test-support.h"

#include <string.h>

/* A focused field is published as a text context, and its selection sent. */
static void
test_focus_publishes_context (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO, "hello world");
    test_widget_select (widget, 6, 11);
    const gchar *context = mb_field_context_id (widget->field);
    WAIT_FOR (g_variant_lookup (fake_selection (f->fake, context), "text", "&s", NULL), 5000);
    g_autoptr (GVariant) published = fake_last_args (f->fake, "PublishContext");
    const gchar *id, *kind;
    g_autoptr (GVariant) dict = NULL;
    g_variant_get (published, "(&s@a{sv}@a(ssa{sv}))", &id, &dict, NULL);
    g_assert_cmpstr (id, ==, context);
    g_assert_true (g_variant_lookup (dict, "kind", "&s", &kind));
    g_assert_cmpstr (kind, ==, "text");
    gboolean editable = FALSE;
    g_assert_true (g_variant_lookup (dict, "editable", "b", &editable));
    g_assert_true (editable);
    g_autofree const gchar **commands = NULL;
    g_assert_true (g_variant_lookup (dict, "supported-commands", "^a&s", &commands));
    g_assert_true (g_strv_contains (commands, "paste"));
    g_assert_true (g_strv_contains (commands, "undo"));
    g_assert_true (g_variant_lookup (dict, "document", "&s", NULL));
    GVariant *selection = fake_selection (f->fake, context);
    const gchar *text;
    guint32 length = 0;
    g_assert_true (g_variant_lookup (selection, "kind", "&s", &kind));
    g_assert_cmpstr (kind, ==, "range");
    g_assert_true (g_variant_lookup (selection, "length", "u", &length));
    g_assert_cmpuint (length, ==, 5);
    g_assert_true (g_variant_lookup (selection, "text", "&s", &text));
    g_assert_cmpstr (text, ==, "world");
}

/* A selection longer than the API's 65536 bytes is not sent, nor cut:
 * GetSelectedText says why it cannot give it. */
static void
test_long_selection_is_not_sent (Fixture *f, gconstpointer data)
{
    g_autofree gchar *text = g_strnfill (70000, 'a');
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, text);
    guint sent = fake_calls (f->fake, "UpdateSelection");
    test_widget_select (widget, 0, 70000);
    WAIT_FOR (fake_calls (f->fake, "UpdateSelection") > sent, 5000);
    core_settle (f->fake);
    GVariant *selection = fake_selection (f->fake, mb_field_context_id (widget->field));
    guint32 length = 0;
    g_assert_true (g_variant_lookup (selection, "length", "u", &length));
    g_assert_cmpuint (length, ==, 70000);
    g_assert_false (g_variant_lookup (selection, "text", "&s", NULL));
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = fake_call_client (
        f->fake, "GetSelectedText", g_variant_new ("(s)", mb_field_context_id (widget->field)), &error);
    g_assert_null (reply);
    g_assert_true (g_dbus_error_is_remote_error (error));
    g_autofree gchar *name = g_dbus_error_get_remote_error (error);
    g_assert_cmpstr (name, ==, MB_ERROR_LIMIT_EXCEEDED);
}

/* 100 selection changes within 16 ms: at most a couple of updates go,
 * the last with the selection as it ended. */
static void
test_selection_changes_coalesce (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "the quick brown fox jumps");
    const gchar *context = mb_field_context_id (widget->field);
    core_settle (f->fake);
    guint before = fake_calls (f->fake, "UpdateSelection");
    gint64 start = g_get_monotonic_time ();
    for (guint i = 0; i < 100; i++) {
        test_widget_select (widget, i % 10, 10 + i % 7);
        /* The toolkit's loop runs between its events. */
        g_main_context_iteration (NULL, FALSE);
    }
    test_widget_select (widget, 4, 9); /* "quick" */
    gint64 took = g_get_monotonic_time () - start;
    g_test_message ("100 changes in %" G_GINT64_FORMAT " us", took);
    if (took > 16000) {
        g_test_skip ("the machine took over 16 ms for 100 changes: they do not fit in a frame");
        return;
    }
    const gchar *text = NULL;
    WAIT_FOR (g_variant_lookup (fake_selection (f->fake, context), "text", "&s", &text) &&
                  g_strcmp0 (text, "quick") == 0,
              5000);
    /* Room for a late update to show. */
    loop_for (100);
    core_settle (f->fake);
    guint sent = fake_calls (f->fake, "UpdateSelection") - before;
    g_test_message ("%u UpdateSelection calls for 101 changes", sent);
    g_assert_cmpuint (sent, >=, 1);
    g_assert_cmpuint (sent, <=, 2);
}

/* 70 fields focused in turn: at most 64 contexts are published at once,
 * the least recently focused removed first; one focused again is
 * published again, in place of the then least recently focused. */
static void
test_contexts_capped_at_64 (Fixture *f, gconstpointer data)
{
    TestWidget *widgets[70];
    for (guint i = 0; i < 70; i++) {
        widgets[i] = fixture_widget (f, MB_FIELD_EDITABLE, "text");
        mb_field_focused (widgets[i]->field);
        WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (widgets[i]->field)), 5000);
    }
    core_settle (f->fake);
    g_assert_cmpuint (fake_max_live_contexts (f->fake), <=, 64);
    g_assert_cmpuint (fake_live_contexts (f->fake), ==, 64);
    for (guint i = 0; i < 70; i++)
        g_assert_true (fake_has_context (f->fake, mb_field_context_id (widgets[i]->field)) == (i >= 6));
    g_autoptr (GPtrArray) removed = fake_args_of (f->fake, "RemoveContext");
    g_assert_cmpuint (removed->len, ==, 6);
    for (guint i = 0; i < 6; i++) {
        const gchar *id;
        g_variant_get (removed->pdata[i], "(&s)", &id);
        g_assert_cmpstr (id, ==, mb_field_context_id (widgets[i]->field));
    }
    mb_field_focused (widgets[0]->field);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (widgets[0]->field)), 5000);
    core_settle (f->fake);
    g_assert_false (fake_has_context (f->fake, mb_field_context_id (widgets[6]->field)));
    g_assert_cmpuint (fake_max_live_contexts (f->fake), <=, 64);
}

/* A field freed: its context is removed. */
static void
test_free_removes_context (Fixture *f, gconstpointer data)
{
    TestWidget *widget = test_widget_new (MB_FIELD_EDITABLE, "text");
    mb_field_focused (widget->field);
    g_autofree gchar *context = g_strdup (mb_field_context_id (widget->field));
    WAIT_FOR (fake_has_context (f->fake, context), 5000);
    test_widget_free (widget);
    WAIT_FOR (!fake_has_context (f->fake, context), 5000);
}

static gchar *
remote_error (GError *error)
{
    g_assert_nonnull (error);
    g_assert_true (g_dbus_error_is_remote_error (error));
    return g_dbus_error_get_remote_error (error);
}

/* The Client object answers menubusd only: any other caller gets
 * AccessDenied, whatever it asks, and the field hears nothing. */
static void
test_client_answers_only_menubusd (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "secret words");
    test_widget_select (widget, 0, 6);
    const gchar *context = mb_field_context_id (widget->field);
    g_autoptr (GError) error = NULL;
    g_autoptr (GDBusConnection) other = g_dbus_connection_new_for_address_sync (
        g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL,
        &error);
    g_assert_no_error (error);
    struct {
        const gchar *method;
        GVariant *args;
    } calls[] = {
        { "PerformCommand", g_variant_new ("(ss@a{sv})", context, "cut", g_variant_new ("a{sv}", NULL)) },
        { "GetSelectedText", g_variant_new ("(s)", context) },
        { "MenuPresented", g_variant_new ("(sso)", context, "edit", "/org/menubus/MenuBus1/menu/1") },
        { "ActionInvoked", g_variant_new ("(ss@a{sv})", context, "x", g_variant_new ("a{sv}", NULL)) },
        { "ShowEditMenu", g_variant_new ("(s@a{sv})", context, g_variant_new ("a{sv}", NULL)) },
    };
    for (guint i = 0; i < G_N_ELEMENTS (calls); i++) {
        g_autoptr (GError) refused = NULL;
        g_autoptr (GVariant) reply = call_core (other, calls[i].method, calls[i].args, &refused);
        g_assert_null (reply);
        g_autofree gchar *name = remote_error (refused);
        g_assert_cmpstr (name, ==, MB_ERROR_ACCESS_DENIED);
    }
    assert_widget_untouched (widget, "secret words");
    g_assert_cmpuint (widget->menus_shown, ==, 0);
    g_dbus_connection_close_sync (other, NULL, NULL);
}

/* From menubusd: PerformCommand and GetSelectedText of an unknown context
 * get NoSuchContext; of the field's, they reach it. */
static void
test_client_serves_menubusd (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "secret words");
    test_widget_select (widget, 0, 6);
    const gchar *context = mb_field_context_id (widget->field);
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = fake_call_client (
        f->fake, "PerformCommand", g_variant_new ("(ss@a{sv})", "no-such", "cut", g_variant_new ("a{sv}", NULL)),
        &error);
    g_assert_null (reply);
    g_autofree gchar *name = remote_error (error);
    g_assert_cmpstr (name, ==, MB_ERROR_NO_SUCH_CONTEXT);
    g_clear_error (&error);
    g_autoptr (GVariant) text_reply =
        fake_call_client (f->fake, "GetSelectedText", g_variant_new ("(s)", "no-such"), &error);
    g_assert_null (text_reply);
    g_autofree gchar *text_error = remote_error (error);
    g_assert_cmpstr (text_error, ==, MB_ERROR_NO_SUCH_CONTEXT);
    g_clear_error (&error);
    assert_widget_untouched (widget, "secret words");

    g_autoptr (GVariant) selected =
        fake_call_client (f->fake, "GetSelectedText", g_variant_new ("(s)", context), &error);
    g_assert_no_error (error);
    const gchar *text;
    g_variant_get (selected, "(&s)", &text);
    g_assert_cmpstr (text, ==, "secret");
    g_autoptr (GVariant) performed = fake_call_client (
        f->fake, "PerformCommand", g_variant_new ("(ss@a{sv})", context, "copy", g_variant_new ("a{sv}", NULL)),
        &error);
    g_assert_no_error (error);
    WAIT_FOR (widget->performed == 1, 5000);
    g_assert_cmpstr (widget->command, ==, "copy");
}

/* What the clipboard offers reaches menubusd with the focused field's
 * next update. */
static void
test_clipboard_types_are_sent (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    const gchar *context = mb_field_context_id (widget->field);
    const gchar *types[] = { "text/plain", "text/html", NULL };
    mb_shim_set_clipboard_types (types);
    g_autofree const gchar **sent = NULL;
    WAIT_FOR (g_variant_lookup (fake_selection (f->fake, context), "pasteboard-types", "^a&s", &sent), 5000);
    g_assert_cmpstrv (sent, types);
    mb_shim_set_clipboard_types (NULL);
}

/* A widget with an undo of its own: menubusd offers Undo and Redo, and
 * choosing them reaches the widget's `perform`, not menubusd's history. */
static void
test_own_undo_goes_to_the_widget (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE | MB_FIELD_OWN_UNDO, "hello");
    const gchar *context = mb_field_context_id (widget->field);
    g_autoptr (GVariant) published = fake_last_args (f->fake, "PublishContext");
    g_autoptr (GVariant) dict = g_variant_get_child_value (published, 1);
    g_autofree const gchar **commands = NULL;
    g_assert_true (g_variant_lookup (dict, "supported-commands", "^a&s", &commands));
    g_assert_true (g_strv_contains (commands, "undo") && g_strv_contains (commands, "redo"));
    const gchar *chosen[] = { "undo", "redo" };
    for (guint i = 0; i < G_N_ELEMENTS (chosen); i++) {
        g_autoptr (GError) error = NULL;
        g_autoptr (GVariant) reply = fake_call_client (
            f->fake, "PerformCommand", g_variant_new ("(ss@a{sv})", context, chosen[i], g_variant_new ("a{sv}", NULL)),
            &error);
        g_assert_no_error (error);
        WAIT_FOR (widget->performed == i + 1, 5000);
        g_assert_cmpstr (widget->command, ==, chosen[i]);
    }
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "Undo") + fake_calls (f->fake, "Redo"), ==, 0);
    g_assert_cmpuint (widget->applied, ==, 0);
}

static gboolean
focused_is (FakeDaemon *fake, TestWidget *widget, gboolean expected)
{
    gboolean focused = !expected;
    GVariant *selection = fake_selection (fake, mb_field_context_id (widget->field));
    return selection && g_variant_lookup (selection, "focused", "b", &focused) && focused == expected;
}

/* menubusd asks the focused field to show its menu (ShowEditMenu, for a
 * shortcut): the widget is asked with the timestamp; once the field lost
 * the focus (which its selection says), it refuses with NoSuchContext. */
static void
test_show_edit_menu_when_focused (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello");
    const gchar *context = mb_field_context_id (widget->field);
    WAIT_FOR (focused_is (f->fake, widget, TRUE), 5000);
    GVariantBuilder platform;
    g_variant_builder_init (&platform, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&platform, "{sv}", "timestamp", g_variant_new_uint32 (1234));
    g_autoptr (GVariant) platform_data = g_variant_ref_sink (g_variant_builder_end (&platform));
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) shown = fake_call_client (f->fake, "ShowEditMenu",
                                                   g_variant_new ("(s@a{sv})", context, platform_data), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (widget->menus_shown, ==, 1);
    g_assert_cmpuint (widget->shown_at, ==, 1234);

    mb_field_blurred (widget->field);
    WAIT_FOR (focused_is (f->fake, widget, FALSE), 5000);
    g_autoptr (GVariant) refused = fake_call_client (f->fake, "ShowEditMenu",
                                                     g_variant_new ("(s@a{sv})", context, platform_data), &error);
    g_assert_null (refused);
    g_autofree gchar *name = remote_error (error);
    g_assert_cmpstr (name, ==, MB_ERROR_NO_SUCH_CONTEXT);
    g_assert_cmpuint (widget->menus_shown, ==, 1);
    assert_widget_untouched (widget, "hello");
}

void
add_field_tests (void)
{
    g_test_add ("/field/focus-publishes-context", Fixture, NULL, fixture_set_up, test_focus_publishes_context,
                fixture_tear_down);
    g_test_add ("/field/long-selection-is-not-sent", Fixture, NULL, fixture_set_up, test_long_selection_is_not_sent,
                fixture_tear_down);
    g_test_add ("/field/selection-changes-coalesce", Fixture, NULL, fixture_set_up, test_selection_changes_coalesce,
                fixture_tear_down);
    g_test_add ("/field/contexts-capped-at-64", Fixture, NULL, fixture_set_up, test_contexts_capped_at_64,
                fixture_tear_down);
    g_test_add ("/field/free-removes-context", Fixture, NULL, fixture_set_up, test_free_removes_context,
                fixture_tear_down);
    g_test_add ("/field/clipboard-types-are-sent", Fixture, NULL, fixture_set_up, test_clipboard_types_are_sent,
                fixture_tear_down);
    g_test_add ("/client/own-undo-goes-to-the-widget", Fixture, NULL, fixture_set_up, test_own_undo_goes_to_the_widget,
                fixture_tear_down);
    g_test_add ("/client/show-edit-menu-when-focused", Fixture, NULL, fixture_set_up, test_show_edit_menu_when_focused,
                fixture_tear_down);
    g_test_add ("/client/answers-only-menubusd", Fixture, NULL, fixture_set_up, test_client_answers_only_menubusd,
                fixture_tear_down);
    g_test_add ("/client/serves-menubusd", Fixture, NULL, fixture_set_up, test_client_serves_menubusd,
                fixture_tear_down);
}
