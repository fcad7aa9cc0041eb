/* A fake menubusd for the shim core's tests: a connection of its own on
 * the test's private bus that owns org.menubus.MenuBus1 and serves the
 * manager object and presented menus from the contract's own interface
 * descriptions (the files in dbus/, built into contract.h). Each method answers
 * as the contract says unless a test chooses otherwise: an error, any
 * body (a wrong signature, a huge layout), late, or never. Everything
 * runs on the default main context: the test drives it. */
#ifndef FAKE_DAEMON_H
#define FAKE_DAEMON_H

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _FakeDaemon FakeDaemon;

/* Connects to DBUS_SESSION_BUS_ADDRESS and owns the name: `replace` takes
 * it from the fake that holds it now (which allows that). Fails the test
 * when it cannot. */
FakeDaemon *fake_daemon_new (gboolean replace);
/* Disconnects: the name goes with it, and held calls are never answered. */
void fake_daemon_free (FakeDaemon *fake);
const gchar *fake_daemon_name (FakeDaemon *fake);
GDBusConnection *fake_daemon_connection (FakeDaemon *fake);
/* Whether it owns the name (until another fake replaced it). */
gboolean fake_daemon_owns_name (FakeDaemon *fake);

/* How `method` (a manager method, or GetLayout, Activate, Dismiss of a
 * presented menu) answers from now on. */
void fake_answer (FakeDaemon *fake, const gchar *method);  /* as the contract says (the default) */
void fake_error (FakeDaemon *fake, const gchar *method, const gchar *error_name);
/* Sends `body` (a tuple, floating or not; NULL for none) as the reply,
 * whatever the method's signature. */
void fake_reply_body (FakeDaemon *fake, const gchar *method, GVariant *body);
/* Holds the calls until fake_release. */
void fake_hold (FakeDaemon *fake, const gchar *method);
/* Answers `ms` later (as fake_answer, fake_error or fake_reply_body set it). */
void fake_delay (FakeDaemon *fake, const gchar *method, guint ms);
/* Answers the held calls of `method` as it answers now; how many. */
guint fake_release (FakeDaemon *fake, const gchar *method);
/* Answers only the oldest held call of `method`; whether there was one. */
gboolean fake_release_one (FakeDaemon *fake, const gchar *method);
guint fake_held (FakeDaemon *fake, const gchar *method);

/* Calls received (answered or not) of `method`, of every method; the
 * arguments of the newest (NULL when none). */
guint fake_calls (FakeDaemon *fake, const gchar *method);
guint fake_all_calls (FakeDaemon *fake);
GVariant *fake_last_args (FakeDaemon *fake, const gchar *method);
/* The arguments of every call of `method`, oldest first (GVariant). */
GPtrArray *fake_args_of (FakeDaemon *fake, const gchar *method);

/* What GetEditMenu and GetLayout answer: `items` (a(ssa{sv})), or with
 * NULL the default, which names the context: `menubus:copy` and an
 * action whose id is `ctx:` and title the context id. */
void fake_set_items (FakeDaemon *fake, GVariant *items);
GVariant *fake_default_items (const gchar *context_id);
/* Whether MenuPresented goes to the app after PresentMenu (default TRUE). */
void fake_set_announce (FakeDaemon *fake, gboolean announce);

/* Contexts published and not removed now, and the most there ever were. */
guint fake_live_contexts (FakeDaemon *fake);
guint fake_max_live_contexts (FakeDaemon *fake);
gboolean fake_has_context (FakeDaemon *fake, const gchar *context_id);
/* The selection last sent for a context (a{sv}), NULL when none. */
GVariant *fake_selection (FakeDaemon *fake, const gchar *context_id);

/* Presented menus, in order: their paths, and the context of each. */
guint fake_menus (FakeDaemon *fake);
const gchar *fake_menu_path (FakeDaemon *fake, guint index);
const gchar *fake_menu_context (FakeDaemon *fake, guint index);
gboolean fake_menu_closed (FakeDaemon *fake, guint index);
/* Emits `signal` of org.menubus.MenuBus1.Menu on a menu's path to its
 * presenter, with any body. */
void fake_emit (FakeDaemon *fake, guint index, const gchar *signal, GVariant *body);

/* Calls the app's Client object (where Register said), waiting on the
 * main loop for the answer: the reply, or NULL and `error`. */
GVariant *fake_call_client (FakeDaemon *fake, const gchar *method, GVariant *args, GError **error);
/* The app that registered (its unique name), NULL before Register. */
const gchar *fake_client (FakeDaemon *fake);

G_END_DECLS

#endif
