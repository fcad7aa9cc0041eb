/* Menus a toolkit draws from their export rather than from GetLayout
 * (GTK 4's extra-menu, mb_menu_present_live): `live` hears once whether
 * the menu was presented, then that it closed, and nothing after the
 * toolkit closed it; commands the toolkit shows itself are left out. */
#include "test-support.h"

typedef struct {
    guint live, closed, empty, failed;
    guint after_close;
    gboolean toolkit_closed;
    gchar *path;
} LiveLog;

static void
live_heard (MbMenu *menu, MbMenuEvent event, const gchar *path, gpointer data)
{
    LiveLog *log = data;
    if (log->toolkit_closed)
        log->after_close++;
    switch (event) {
    case MB_MENU_LIVE:
        log->live++;
        g_free (log->path);
        log->path = g_strdup (path);
        break;
    case MB_MENU_CLOSED:
        log->closed++;
        break;
    case MB_MENU_EMPTY:
        log->empty++;
        break;
    case MB_MENU_FAILED:
        log->failed++;
        break;
    }
}

static void
live_close (MbMenu *menu, LiveLog *log)
{
    log->toolkit_closed = TRUE;
    mb_menu_close (menu);
}

static void
live_log_free (gpointer data)
{
    LiveLog *log = data;
    g_assert_cmpuint (log->after_close, ==, 0);
    g_free (log->path);
    g_free (log);
}

/* Held by the test until its end: the core may still hold the pointer. */
static LiveLog *
live_log (GPtrArray *logs)
{
    LiveLog *log = g_new0 (LiveLog, 1);
    g_ptr_array_add (logs, log);
    return log;
}

static void
test_presented_then_closed (Fixture *f, gconstpointer data)
{
    g_autoptr (GPtrArray) logs = g_ptr_array_new_with_free_func (live_log_free);
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    const gchar *omit[] = { "cut", "copy", NULL };
    LiveLog *log = live_log (logs);
    gint64 start = g_get_monotonic_time ();
    MbMenu *menu = mb_menu_present_live (widget->field, omit, live_heard, log);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 20000);
    g_assert_nonnull (menu);
    WAIT_FOR (log->live == 1, 5000);
    g_assert_cmpstr (log->path, ==, fake_menu_path (f->fake, 0));
    g_autoptr (GVariant) args = fake_last_args (f->fake, "PresentMenu");
    g_autoptr (GVariant) options = g_variant_get_child_value (args, 3);
    g_autofree const gchar **omitted = NULL;
    g_assert_true (g_variant_lookup (options, "omit-commands", "^a&s", &omitted));
    g_assert_cmpstrv (omitted, omit);
    fake_emit (f->fake, 0, "Closed", NULL);
    WAIT_FOR (log->closed == 1, 5000);
    live_close (menu, log);
    core_settle (f->fake);
    /* Closed on menubusd's side: nothing to dismiss. */
    g_assert_cmpuint (fake_calls (f->fake, "Dismiss"), ==, 0);
    g_assert_cmpuint (log->live + log->closed + log->empty + log->failed, ==, 2);
}

/* Not presented: NothingToShow is EMPTY; any other error, or an answer of
 * the wrong shape, FAILED. */
static void
test_empty_and_failed (Fixture *f, gconstpointer data)
{
    g_autoptr (GPtrArray) logs = g_ptr_array_new_with_free_func (live_log_free);
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    struct {
        const gchar *error;
        GVariant *body;
        gboolean empty;
    } answers[] = {
        { MB_ERROR_NOTHING_TO_SHOW, NULL, TRUE },
        { "com.example.Arbitrary.Failure", NULL, FALSE },
        { NULL, g_variant_new ("(u)", 3), FALSE },
        { NULL, g_variant_new ("(s)", "/org/menubus/MenuBus1/menu/9"), FALSE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (answers); i++) {
        if (answers[i].error)
            fake_error (f->fake, "PresentMenu", answers[i].error);
        else
            fake_reply_body (f->fake, "PresentMenu", answers[i].body);
        LiveLog *log = live_log (logs);
        MbMenu *menu = mb_menu_present_live (widget->field, NULL, live_heard, log);
        WAIT_FOR (log->empty + log->failed == 1, 5000);
        g_assert_cmpuint (answers[i].empty ? log->empty : log->failed, ==, 1);
        g_assert_cmpuint (log->live + log->closed, ==, 0);
        live_close (menu, log);
    }
    core_settle (f->fake);
    assert_widget_untouched (widget, "hello world");
}

/* Closed by the toolkit before the presentation came: `live` hears
 * nothing, and the presentation that comes is dismissed. */
static void
test_closed_before_presented (Fixture *f, gconstpointer data)
{
    g_autoptr (GPtrArray) logs = g_ptr_array_new_with_free_func (live_log_free);
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    fake_hold (f->fake, "PresentMenu");
    LiveLog *log = live_log (logs);
    MbMenu *menu = mb_menu_present_live (widget->field, NULL, live_heard, log);
    WAIT_FOR (fake_held (f->fake, "PresentMenu") == 1, 5000);
    live_close (menu, log);
    fake_answer (f->fake, "PresentMenu");
    fake_release (f->fake, "PresentMenu");
    WAIT_FOR (fake_calls (f->fake, "Dismiss") == 1, 5000);
    core_settle (f->fake);
    g_assert_true (fake_menu_closed (f->fake, 0));
}

/* menubusd goes while the menu is live: CLOSED. */
static void
test_daemon_goes (Fixture *f, gconstpointer data)
{
    g_autoptr (GPtrArray) logs = g_ptr_array_new_with_free_func (live_log_free);
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    LiveLog *log = live_log (logs);
    MbMenu *menu = mb_menu_present_live (widget->field, NULL, live_heard, log);
    WAIT_FOR (log->live == 1, 5000);
    fake_daemon_free (f->fake);
    f->fake = NULL;
    WAIT_FOR (log->closed == 1, 5000);
    live_close (menu, log);
    g_assert_null (mb_menu_present_live (widget->field, NULL, live_heard, log));
    f->fake = fake_daemon_new (FALSE);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (widget->field)), 5000);
}

/* Commands the toolkit's own menus show (mb_shim_omit_commands) are left
 * out of every menu of mb_menu_present. */
static void
test_omitted_commands (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, "hello world");
    const gchar *omit[] = { "undo", "redo", NULL };
    mb_shim_omit_commands (omit);
    MenuLog *log = fixture_present (f, widget, NULL);
    WAIT_FOR (fake_calls (f->fake, "PresentMenu") == 1, 5000);
    g_autoptr (GPtrArray) asked = fake_args_of (f->fake, "PresentMenu");
    g_autoptr (GPtrArray) read = fake_args_of (f->fake, "GetEditMenu");
    g_ptr_array_extend_and_steal (asked, g_steal_pointer (&read));
    for (guint i = 0; i < asked->len; i++) {
        GVariant *args = asked->pdata[i];
        g_autoptr (GVariant) options = g_variant_get_child_value (args, g_variant_n_children (args) - 1);
        g_autofree const gchar **omitted = NULL;
        g_assert_true (g_variant_lookup (options, "omit-commands", "^a&s", &omitted));
        g_assert_cmpstrv (omitted, omit);
    }
    menu_log_close (log);
    mb_shim_omit_commands (NULL);
}

void
add_live_tests (void)
{
    g_test_add ("/live/presented-then-closed", Fixture, NULL, fixture_set_up, test_presented_then_closed,
                fixture_tear_down);
    g_test_add ("/live/empty-and-failed", Fixture, NULL, fixture_set_up, test_empty_and_failed, fixture_tear_down);
    g_test_add ("/live/closed-before-presented", Fixture, NULL, fixture_set_up, test_closed_before_presented,
                fixture_tear_down);
    g_test_add ("/live/daemon-goes", Fixture, NULL, fixture_set_up, test_daemon_goes, fixture_tear_down);
    g_test_add ("/menu/omitted-commands", Fixture, NULL, fixture_set_up, test_omitted_commands, fixture_tear_down);
}
