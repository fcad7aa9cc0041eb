/* The shim core's own parts, shared by its files and by nothing else:
 * the process's state, a field and a menu as the core keeps them, and the
 * calls one concern makes of another. Adapters include menubus-shim.h. */
#ifndef MENUBUS_CORE_H
#define MENUBUS_CORE_H

#include "menubus-names.h"
#include "menubus-policy.h"
#include "menubus-shim.h"

G_BEGIN_DECLS

typedef enum { MENU_WAITING, MENU_SHOWN, MENU_ENDED } MbMenuState;

struct _MbMenu {
    gint refs;
    guint field;    /* the field's serial; mb_field_lookup finds it while it lives */
    gchar *context_id;
    MbMenuState state;
    gchar *path;
    guint layout_sub;
    guint closed_sub;
    gboolean toolkit_closed;
    gboolean chosen;
    gboolean asking; /* a PresentMenu of its own is still out */
    MbMenuChanged changed;
    gpointer data;
    /* mb_menu_present_live: only Closed is followed here, and the items
     * too after mb_menu_follow (`changed`). */
    MbMenuLive live;
    gchar **omit;
    gboolean remote_closed; /* Closed came, or menubusd went */
    /* The items shown before the presentation came (read ahead, or
     * GetEditMenu's answer), and an item chosen meanwhile, activated when
     * the presentation comes. */
    GVariant *shown_items;
    gchar *pending_item;
    guint32 pending_timestamp;
    guint present_idle; /* present_soon's idle, until it runs */
    GCancellable *cancellable; /* the menu's own calls, cancelled when it ends */
};

struct _MbField {
    gpointer widget;
    const MbFieldOps *ops;
    guint serial;       /* this field's number in the process, never reused */
    gchar *context_id;
    gchar *document_id;
    /* Every call made for this field: cancelled when it goes, and its
     * answer finds the field by serial, never by address. */
    GCancellable *cancellable;
    gboolean published;
    MbFieldFlags published_flags;
    gboolean dirty;
    gboolean in_flight;
    gboolean republished; /* sent again after a lost context, since its last answer */
    guint timeout_id;
    gint64 focused_at;
    gboolean has_focus; /* the keyboard focus, as the toolkit last said */
    /* undo */
    guint action_depth;
    gchar *action_name;
    GArray *action_edits; /* MbEdit */
    gboolean applying;
    guint run;          /* the merge key's number */
    gint64 run_end;     /* where the caret stands after the run, -1 none */
    gboolean has_history;
    guint edits;        /* edits recorded so far: an Undo/Redo answer made before a later one is stale */
    /* What menubusd was last told of the selection, and the edit menu read
     * ahead for it (valid while `generation` has not moved since). */
    GVariant *last_sent;
    guint generation;
    guint prefetch_id;
    GVariant *prefetched;
    guint prefetched_generation;
    /* The edit bar: waiting to show (its timer), shown, and the selection
     * it is for (mb-bar.c). */
    guint bar_timer;
    gboolean bar_shown;
    gchar *bar_key;
    /* The shortcut taken for this selection (its key's hash, and the
     * generation + 1 it was taken at): pressed again or held, it does not
     * run the provider again before the selection changes. */
    guint shortcut_hash;
    guint shortcut_generation;
};

typedef struct {
    gboolean initialized;
    gboolean enabled;
    gchar *toolkit;
    GDBusConnection *bus;
    guint watch;
    gchar *owner;        /* menubusd's unique name, NULL when it is not running */
    gboolean registered; /* Register sent to this owner */
    gchar *app_id;
    guint client_object;
    GDBusNodeInfo *client_info;
    GHashTable *fields;  /* serial → MbField */
    MbField *focused;
    gchar **clipboard;
    gchar **omit;        /* mb_shim_omit_commands */
    /* A call timed out: until menubusd answers again, nothing is read ahead. */
    gboolean stalled;
    /* Presentations that timed out, by context id, each the count of
     * menus menubusd may still announce (MenuPresented). */
    GHashTable *timed_out;
    GList *menus;        /* every MbMenu not yet ended */
    gboolean reads_ahead; /* mb_menu_present is used: menus are read ahead */
    guint next_field;
    guint32 token;
    MbDaemonWatch daemon_watch;
    gpointer daemon_watch_data;
} MbCoreState;

G_GNUC_INTERNAL extern MbCoreState mb_core;

/* mb-connection.c */
G_GNUC_INTERNAL GPtrArray *mb_integration_files (void);
G_GNUC_INTERNAL gboolean mb_is_domain_error (const GError *error, const gchar *full_name);
G_GNUC_INTERNAL void mb_heard_from_daemon (void);
G_GNUC_INTERNAL void mb_call_done (GObject *source, GAsyncResult *result, gpointer data);
G_GNUC_INTERNAL void mb_call (const gchar *method, GVariant *args, gboolean auto_start);
G_GNUC_INTERNAL void mb_ensure_registered (void);
G_GNUC_INTERNAL void mb_forget_registration (void);

/* mb-field.c */
G_GNUC_INTERNAL MbField *mb_field_lookup (guint serial);
G_GNUC_INTERNAL MbField *mb_field_by_context (const gchar *context_id);
G_GNUC_INTERNAL void mb_field_send (MbField *field, gboolean force);
G_GNUC_INTERNAL void mb_field_catch_up (MbField *field);
G_GNUC_INTERNAL void mb_field_forget_menu (MbField *field, gboolean again);
G_GNUC_INTERNAL GVariant *mb_field_menu_ahead (MbField *field);
typedef void (*MbEditMenuAnswer) (MbField *field, GVariant *items, gpointer data);
G_GNUC_INTERNAL void mb_field_ask_edit_menu (MbField *field, MbEditMenuAnswer answer, gpointer data,
                                             GDestroyNotify free_data);
G_GNUC_INTERNAL GVariant *mb_edit_menu_args (MbField *field);
G_GNUC_INTERNAL void mb_field_lost (MbField *field);
G_GNUC_INTERNAL gboolean mb_field_selects (MbField *field, const gchar *text);
G_GNUC_INTERNAL void mb_fields_daemon_gone (void);

/* mb-undo.c */
G_GNUC_INTERNAL void mb_clear_edits (GArray *edits);

/* mb-menu.c */
G_GNUC_INTERNAL void mb_menus_daemon_gone (void);
G_GNUC_INTERNAL void mb_menu_announced (const gchar *context_id, const gchar *kind, const gchar *path);

/* mb-bar.c */
G_GNUC_INTERNAL GVariant *mb_bar_items (GVariant *menu);
G_GNUC_INTERNAL void mb_bar_field_changed (MbField *field);

/* mb-items.c */
G_GNUC_INTERNAL gboolean mb_items_check (GVariant *items, const gchar *what);
G_GNUC_INTERNAL GVariant *mb_layout_items (GVariant *reply, const gchar *what);

G_END_DECLS

#endif
