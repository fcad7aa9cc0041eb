/* What the shim core's tests share: a fake widget the core drives through
 * MbFieldOps, a fixture with a fake menubusd per test, a recorder of a
 * menu's `changed` calls, and waits on the main loop with timeouts. */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include "fake-daemon.h"
#include "menubus-names.h"
#include "menubus-shim.h"

G_BEGIN_DECLS

/* The program's name for the core (g_get_prgname), and one that main
 * lists in [Exclude] Apps of the test's menubus/integration.conf. */
#define CORE_TEST_NAME "menubus-core-test"
#define CORE_TEST_EXCLUDED_NAME "menubus-core-test-excluded"

/* A text field as a toolkit has it: text, a selection in characters, and
 * what the core asked of it. */
typedef struct {
    GString *text;
    guint start, end;
    MbFieldFlags flags;
    MbField *field;
    guint performed;      /* perform calls */
    gchar *command;       /* the last one's command */
    guint applied;        /* apply calls */
    guint menus_shown;    /* show_menu calls */
    guint32 shown_at;     /* the last one's timestamp */
    guint mismatches;     /* deletions whose text was not the field's */
    guint bars_shown;     /* show_bar calls */
    guint bars_hidden;    /* hide_bar calls */
    GVariant *bar;        /* the items of the bar showing, NULL when none */
} TestWidget;

extern const MbFieldOps test_widget_ops;

/* A widget and its field (mb_field_new); test_widget_free frees both. */
TestWidget *test_widget_new (MbFieldFlags flags, const gchar *text);
void test_widget_free (TestWidget *widget);
/* Selects [start, end) and tells the core (mb_field_changed). */
void test_widget_select (TestWidget *widget, guint start, guint end);
/* Types `text` at the caret, one character at a time, each recorded
 * (mb_field_record) as a toolkit's insert-text would. */
void test_widget_type (TestWidget *widget, const gchar *text);
/* Replaces the whole text as one action named `name` (mb_field_begin_action,
 * a deletion and an insertion, mb_field_end_action). */
void test_widget_replace_all (TestWidget *widget, const gchar *name, const gchar *text);

/* A menu opened by a test, and what its `changed` heard. */
typedef struct {
    MbMenu *menu;      /* NULL when mb_menu_present gave none */
    guint calls;
    guint nulls;       /* `items` NULL: closed on menubusd's side */
    guint wrong_types; /* `items` not a menu within the contract (items_valid) */
    guint after_close; /* calls after mb_menu_close */
    gboolean closed;
    GVariant *last;    /* the last items, when any came */
    GString *ids;      /* every element id of every layout that came, one a line */
} MenuLog;

void menu_log_changed (MbMenu *menu, GVariant *items, gpointer data);
/* Whether `items` is a menu as the header promises: a(ssa{sv}) within
 * the contract's bounds (menubus-names.h: elements, string bytes), ids
 * unique and not empty, each parent before its children. */
gboolean items_valid (GVariant *items);
/* Whether `items` hold an element whose id is `id`. */
gboolean items_have (GVariant *items, const gchar *id);
/* The id `ctx:CONTEXT` the fake's default items name a field's context by. */
gchar *context_item (TestWidget *widget);

typedef struct {
    FakeDaemon *fake;
    GPtrArray *widgets; /* TestWidget, freed at teardown */
    GPtrArray *menus;   /* MenuLog, closed and freed at teardown */
} Fixture;

/* Turns the core on once a process (a private bus is up: main), starts a
 * fake menubusd and waits until the core has heard of it. */
void fixture_set_up (Fixture *fixture, gconstpointer data);
void fixture_tear_down (Fixture *fixture, gconstpointer data);
/* A widget the fixture frees, focused (mb_field_focused) once its
 * context is published and its selection sent. */
TestWidget *fixture_focused_widget (Fixture *fixture, MbFieldFlags flags, const gchar *text);
/* A widget the fixture frees, neither focused nor published. */
TestWidget *fixture_widget (Fixture *fixture, MbFieldFlags flags, const gchar *text);

/* One undo payload as the core encodes it: `op` 'i' or 'd', the offset,
 * then `length` bytes of `text` (which may be anything). */
GBytes *undo_payload (gchar op, guint32 offset, const gchar *text, gsize length);
/* An Undo or Redo reply, (saay), of these payloads. */
GVariant *undo_reply (GBytes *const *payloads, guint n);

/* Opens the widget's edit menu (mb_menu_present) with a log the fixture
 * keeps; `items` as mb_menu_present gives them (NULL: ignored). */
MenuLog *fixture_present (Fixture *fixture, TestWidget *widget, GVariant **items);
/* The toolkit closes the menu (mb_menu_close); once only. */
void menu_log_close (MenuLog *log);

/* A menu opened now shows the fake's items for the widget, at once or
 * through `changed`: the core still works. */
void assert_menu_shows_items (Fixture *fixture, TestWidget *widget);
/* Nothing reached the widget: no perform, no apply, its text `text`. */
void assert_widget_untouched (TestWidget *widget, const gchar *text);

/* How often the core said menubusd came and went (mb_shim_watch_daemon). */
extern guint daemon_ups, daemon_downs;

/* Everything the core was sent before this has been handled, and the
 * replies it got before this have reached it: a call from `fake` to the
 * core's Client object (GetSelectedText of no context), answered on the
 * main loop after them. */
void core_barrier (FakeDaemon *fake);
/* Barriers until a round (25 ms, past the coalescing of updates, and a
 * round trip) passes with no new call to `fake`: what the core does in
 * answer to answers has been done. */
void core_settle (FakeDaemon *fake);

/* Calls `method` on the core's Client object from `from` (any
 * connection), waiting on the main loop: the reply, or NULL and `error`. */
GVariant *call_core (GDBusConnection *from, const gchar *method, GVariant *args, GError **error);

/* Runs the main loop until `condition` holds; fails the test naming it
 * after `ms`. The condition is evaluated once each time round. */
#define WAIT_FOR(condition, ms)                                                                    \
    G_STMT_START {                                                                                 \
        gint64 wait_deadline_ = g_get_monotonic_time () + (gint64) (ms) * 1000;                   \
        gboolean wait_held_;                                                                       \
        while (!(wait_held_ = (condition)) && g_get_monotonic_time () < wait_deadline_)           \
            loop_step (wait_deadline_);                                                            \
        if (!wait_held_)                                                                           \
            g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC,                      \
                                 "timed out after " #ms " ms waiting for: " #condition);          \
    }                                                                                              \
    G_STMT_END

/* One main loop iteration, waiting at most until `deadline` (monotonic µs). */
void loop_step (gint64 deadline);
/* Runs the main loop for `ms`: room for what must NOT happen to show. */
void loop_for (guint ms);

/* Registers each group's tests. */
void add_menu_tests (void);
void add_hostile_tests (void);
void add_field_tests (void);
void add_daemon_tests (void);
void add_undo_tests (void);
void add_identity_tests (void);
void add_live_tests (void);
void add_shortcut_tests (void);
void add_bar_tests (void);

G_END_DECLS

#endif
