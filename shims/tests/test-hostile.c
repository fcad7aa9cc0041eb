/* A menubusd that misbehaves: wrong reply signatures, huge layouts,
 * errors, signals of the wrong shape, answers after the core gave up. The
 * core must not crash, must give a menu nothing but NULL or a well-typed
 * layout, and must leave the field's text alone; after each, a menu
 * opened against a well-behaved answer still works. */
#include "test-support.h"

#define TEXT "hello world"

/* 64 KiB of one letter. */
static gchar *
long_title (void)
{
    gchar *title = g_malloc (65537);
    memset (title, 'x', 65536);
    title[65536] = '\0';
    return title;
}

/* A layout of `n` actions, every `long_every`-th with a 64 KiB title (0: none). */
static GVariant *
huge_items (guint n, guint long_every)
{
    g_autofree gchar *title = long_title ();
    GVariantBuilder items;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    for (guint i = 0; i < n; i++) {
        GVariantBuilder props;
        g_variant_builder_init (&props, G_VARIANT_TYPE_VARDICT);
        gboolean is_long = long_every && i % long_every == 0;
        g_autofree gchar *short_title = g_strdup_printf ("Item %u", i);
        g_variant_builder_add (&props, "{sv}", "title", g_variant_new_string (is_long ? title : short_title));
        g_autofree gchar *id = g_strdup_printf ("huge:%u", i);
        g_variant_builder_add (&items, "(ss@a{sv})", id, "", g_variant_builder_end (&props));
    }
    return g_variant_builder_end (&items);
}

typedef struct {
    const gchar *name;
    const gchar *method;
    const gchar *error; /* an error to answer, or */
    GVariant *(*body) (void); /* a body to answer */
} Hostile;

static GVariant *body_string (void) { return g_variant_new ("(s)", "not a menu"); }
static GVariant *body_uint (void) { return g_variant_new ("(u)", 7); }
static GVariant *body_none (void) { return NULL; }
static GVariant *body_short_items (void) { return g_variant_new_parsed ("(uint32 1, [('a', '')])"); }
static GVariant *body_wrong_path (void) { return g_variant_new ("(s)", "/org/menubus/MenuBus1/menu/1"); }
static GVariant *body_repeated_ids (void) { return g_variant_new_parsed ("(uint32 1, [('a', '', @a{sv} {}), ('a', '', {})])"); }
static GVariant *body_parent_after (void) { return g_variant_new_parsed ("(uint32 1, [('a', 'b', @a{sv} {}), ('b', '', {})])"); }
static GVariant *body_empty_id (void) { return g_variant_new_parsed ("(uint32 1, [('', '', @a{sv} {})])"); }
static GVariant *body_many (void) { return g_variant_new ("(u@a(ssa{sv}))", 1, huge_items (10000, 0)); }
static GVariant *body_long_titles (void) { return g_variant_new ("(u@a(ssa{sv}))", 1, huge_items (64, 8)); }

static const Hostile replies[] = {
    { "GetEditMenu (s)", "GetEditMenu", NULL, body_string },
    { "GetEditMenu ()", "GetEditMenu", NULL, body_none },
    { "GetEditMenu (ua(ss))", "GetEditMenu", NULL, body_short_items },
    { "GetEditMenu repeated ids", "GetEditMenu", NULL, body_repeated_ids },
    { "GetEditMenu a parent after its child", "GetEditMenu", NULL, body_parent_after },
    { "GetEditMenu an empty id", "GetEditMenu", NULL, body_empty_id },
    { "GetEditMenu 10,000 elements", "GetEditMenu", NULL, body_many },
    { "GetEditMenu 64 KiB titles", "GetEditMenu", NULL, body_long_titles },
    { "GetEditMenu NoSuchContext", "GetEditMenu", MB_ERROR_NO_SUCH_CONTEXT, NULL },
    { "GetEditMenu arbitrary error", "GetEditMenu", "com.example.Arbitrary.Failure", NULL },
    { "PresentMenu (u)", "PresentMenu", NULL, body_uint },
    { "PresentMenu (s) path", "PresentMenu", NULL, body_wrong_path },
    { "PresentMenu ()", "PresentMenu", NULL, body_none },
    { "PresentMenu NothingToShow", "PresentMenu", MB_ERROR_NOTHING_TO_SHOW, NULL },
    { "PresentMenu NoSuchContext", "PresentMenu", MB_ERROR_NO_SUCH_CONTEXT, NULL },
    { "PresentMenu arbitrary error", "PresentMenu", "com.example.Arbitrary.Failure", NULL },
    { "GetLayout (s)", "GetLayout", NULL, body_string },
    { "GetLayout (ua(ss))", "GetLayout", NULL, body_short_items },
    { "GetLayout repeated ids", "GetLayout", NULL, body_repeated_ids },
    { "GetLayout a parent after its child", "GetLayout", NULL, body_parent_after },
    { "GetLayout 10,000 elements", "GetLayout", NULL, body_many },
    { "GetLayout 64 KiB titles", "GetLayout", NULL, body_long_titles },
    { "GetLayout UnknownObject", "GetLayout", "org.freedesktop.DBus.Error.UnknownObject", NULL },
    { "UpdateSelection (u)", "UpdateSelection", NULL, body_uint },
    { "PublishContext (s)", "PublishContext", NULL, body_string },
    { "Register arbitrary error", "Register", "com.example.Arbitrary.Failure", NULL },
};

/* Each hostile answer in turn, to a field focused and a menu opened. */
static void
test_hostile_replies (Fixture *f, gconstpointer data)
{
    for (guint i = 0; i < G_N_ELEMENTS (replies); i++) {
        const Hostile *hostile = &replies[i];
        g_test_message ("hostile answer: %s", hostile->name);
        FakeDaemon *fake = f->fake;
        if (hostile->error)
            fake_error (fake, hostile->method, hostile->error);
        else
            fake_reply_body (fake, hostile->method, hostile->body ());
        TestWidget *widget = fixture_widget (f, MB_FIELD_EDITABLE, TEXT);
        mb_field_focused (widget->field);
        test_widget_select (widget, 0, 5);
        core_settle (fake);
        MenuLog *log = fixture_present (f, widget, NULL);
        core_settle (fake);
        test_widget_select (widget, 2, 4);
        core_settle (fake);
        menu_log_close (log);
        g_assert_cmpuint (log->wrong_types, ==, 0);
        assert_widget_untouched (widget, TEXT);
        /* menubusd behaves again: the core still works. */
        fake_answer (fake, hostile->method);
        test_widget_select (widget, 0, 11);
        WAIT_FOR (fake_has_context (fake, mb_field_context_id (widget->field)), 5000);
        assert_menu_shows_items (f, widget);
        assert_widget_untouched (widget, TEXT);
    }
}

typedef struct {
    const gchar *name;
    const gchar *signal;
    GVariant *(*body) (void);
} HostileSignal;

static GVariant *body_layout_wrong_items (void) { return g_variant_new_parsed ("(uint32 2, [('a', '')])"); }
static GVariant *body_layout_many (void) { return g_variant_new ("(u@a(ssa{sv}))", 2, huge_items (10000, 0)); }
static GVariant *body_layout_long (void) { return g_variant_new ("(u@a(ssa{sv}))", 2, huge_items (64, 8)); }
static GVariant *body_closed_with_args (void) { return g_variant_new ("(s)", "closing"); }

static const HostileSignal signals[] = {
    { "LayoutChanged ()", "LayoutChanged", body_none },
    { "LayoutChanged (s)", "LayoutChanged", body_string },
    { "LayoutChanged (u)", "LayoutChanged", body_uint },
    { "LayoutChanged (ua(ss))", "LayoutChanged", body_layout_wrong_items },
    { "LayoutChanged 10,000 elements", "LayoutChanged", body_layout_many },
    { "LayoutChanged 64 KiB titles", "LayoutChanged", body_layout_long },
    { "Closed (s)", "Closed", body_closed_with_args },
};

/* Signals of the wrong shape on an open menu's path. */
static void
test_hostile_signals (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, TEXT);
    for (guint i = 0; i < G_N_ELEMENTS (signals); i++) {
        g_test_message ("hostile signal: %s", signals[i].name);
        guint menus = fake_menus (f->fake);
        MenuLog *log = fixture_present (f, widget, NULL);
        WAIT_FOR (fake_menus (f->fake) == menus + 1, 5000);
        core_settle (f->fake);
        fake_emit (f->fake, menus, signals[i].signal, signals[i].body ());
        core_settle (f->fake);
        g_assert_cmpuint (log->wrong_types, ==, 0);
        menu_log_close (log);
        assert_widget_untouched (widget, TEXT);
    }
    assert_menu_shows_items (f, widget);
}

/* Another connection than menubusd emits on the menu's path: nothing
 * reaches the menu. */
static void
test_signals_of_others_are_ignored (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, TEXT);
    MenuLog *log = fixture_present (f, widget, NULL);
    WAIT_FOR (fake_menus (f->fake) == 1 && fake_calls (f->fake, "GetLayout") >= 1, 5000);
    core_settle (f->fake);
    guint heard = log->calls;
    g_autoptr (GError) error = NULL;
    g_autoptr (GDBusConnection) other = g_dbus_connection_new_for_address_sync (
        g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL,
        &error);
    g_assert_no_error (error);
    const gchar *core = g_dbus_connection_get_unique_name (mb_shim_connection ());
    g_autoptr (GVariant) layout = fake_default_items ("forged");
    g_dbus_connection_emit_signal (other, core, fake_menu_path (f->fake, 0), MB_MENU_IFACE,
                                   "LayoutChanged", g_variant_new ("(u@a(ssa{sv}))", 5, layout), &error);
    g_assert_no_error (error);
    g_dbus_connection_emit_signal (other, core, fake_menu_path (f->fake, 0), MB_MENU_IFACE, "Closed",
                                   NULL, &error);
    g_assert_no_error (error);
    g_dbus_connection_flush_sync (other, NULL, NULL);
    /* The forged signals went before this barrier's call reached the core. */
    g_autoptr (GVariant) reply = call_core (other, "GetSelectedText", g_variant_new ("(s)", "x"), NULL);
    core_settle (f->fake);
    g_assert_cmpuint (log->calls, ==, heard);
    menu_log_close (log);
    g_dbus_connection_close_sync (other, NULL, NULL);
}

/* A menubusd that answers every update NoSuchContext, though it took the
 * context each time: the core publishes again once, not in a loop that
 * costs the app a call every 16 ms for as long as the field is focused. */
static void
test_lost_context_is_not_retried_in_a_loop (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE, TEXT);
    const gchar *context = mb_field_context_id (widget->field);
    core_settle (f->fake);
    fake_error (f->fake, "UpdateSelection", MB_ERROR_NO_SUCH_CONTEXT);
    guint before = fake_calls (f->fake, "UpdateSelection");
    test_widget_select (widget, 0, 5);
    WAIT_FOR (fake_calls (f->fake, "UpdateSelection") > before, 5000);
    loop_for (500);
    guint sent = fake_calls (f->fake, "UpdateSelection") - before;
    g_test_message ("%u updates in 0.5 s answered NoSuchContext", sent);
    g_assert_cmpuint (sent, <=, 3);
    /* menubusd behaves again: the next change reaches it. */
    fake_answer (f->fake, "UpdateSelection");
    test_widget_select (widget, 0, 3);
    const gchar *text = NULL;
    WAIT_FOR (fake_selection (f->fake, context) &&
                  g_variant_lookup (fake_selection (f->fake, context), "text", "&s", &text) &&
                  g_strcmp0 (text, "hel") == 0,
              5000);
    assert_widget_untouched (widget, TEXT);
}

/* A menubusd that never answers anything: no call of the core's API
 * waits for it (each returns within a bound far under a frame). */
static void
test_never_answered (Fixture *f, gconstpointer data)
{
    const gchar *methods[] = { "Register", "PublishContext", "UpdateSelection", "GetEditMenu", "PresentMenu",
                               "GetLayout", "RegisterUndo", "Undo", "Redo", "RemoveContext", "ClearUndo",
                               "Activate", "Dismiss" };
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
        fake_hold (f->fake, methods[i]);
    gint64 worst = 0, start;
#define TIMED(call) (start = g_get_monotonic_time (), (call), worst = MAX (worst, g_get_monotonic_time () - start))
    TestWidget *widget = fixture_widget (f, MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO, "");
    TIMED (mb_field_focused (widget->field));
    TIMED (test_widget_type (widget, "abc"));
    TIMED (test_widget_select (widget, 0, 2));
    WAIT_FOR (fake_held (f->fake, "Register") == 1, 5000);
    loop_for (150); /* past the coalescing and the read-ahead */
    MenuLog *log;
    TIMED (log = fixture_present (f, widget, NULL));
    TIMED (mb_menu_activate (log->menu, "menubus:copy", 0));
    TIMED (menu_log_close (log));
    TIMED (mb_field_undo (widget->field));
    TIMED (mb_field_redo (widget->field));
    TestWidget *other = test_widget_new (MB_FIELD_EDITABLE, "other");
    TIMED (mb_field_focused (other->field));
    TIMED (test_widget_free (other));
    TIMED (mb_field_focused (widget->field));
    loop_for (50);
#undef TIMED
    g_test_message ("the slowest call took %" G_GINT64_FORMAT " us with menubusd silent", worst);
    g_assert_cmpint (worst, <, 20000);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    g_assert_cmpstr (widget->text->str, ==, "abc");
    g_assert_cmpuint (widget->applied + widget->performed, ==, 0);
}

/* Answers held past the core's own call timeout (5 s) and sent after
 * 10 s: the core gave up on them; they change nothing, and menus work. */
static void
test_replies_after_ten_seconds (Fixture *f, gconstpointer data)
{
    TestWidget *widget = fixture_focused_widget (f, MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO, "");
    test_widget_type (widget, "abc");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 3, 5000);
    const gchar *methods[] = { "GetEditMenu", "PresentMenu", "GetLayout", "UpdateSelection", "Undo" };
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
        fake_hold (f->fake, methods[i]);
    MenuLog *log = fixture_present (f, widget, NULL);
    test_widget_select (widget, 0, 2);
    mb_field_undo (widget->field);
    WAIT_FOR (fake_held (f->fake, "Undo") == 1, 5000);
    loop_for (10500);
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++) {
        fake_answer (f->fake, methods[i]);
        fake_release (f->fake, methods[i]);
    }
    core_settle (f->fake);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    g_assert_cmpuint (widget->applied, ==, 0);
    g_assert_cmpstr (widget->text->str, ==, "abc");
    menu_log_close (log);
    assert_menu_shows_items (f, widget);
}

void
add_hostile_tests (void)
{
    g_test_add ("/hostile/replies", Fixture, NULL, fixture_set_up, test_hostile_replies, fixture_tear_down);
    g_test_add ("/hostile/signals", Fixture, NULL, fixture_set_up, test_hostile_signals, fixture_tear_down);
    g_test_add ("/hostile/signals-of-others-are-ignored", Fixture, NULL, fixture_set_up,
                test_signals_of_others_are_ignored, fixture_tear_down);
    g_test_add ("/hostile/lost-context-is-not-retried-in-a-loop", Fixture, NULL, fixture_set_up,
                test_lost_context_is_not_retried_in_a_loop, fixture_tear_down);
    g_test_add ("/hostile/never-answered", Fixture, NULL, fixture_set_up, test_never_answered, fixture_tear_down);
    g_test_add ("/hostile/replies-after-ten-seconds", Fixture, NULL, fixture_set_up, test_replies_after_ten_seconds,
                fixture_tear_down);
}
