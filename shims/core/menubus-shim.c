/* menubusd's side of the toolkit shims: see menubus-shim.h. */
#include "menubus-shim.h"

#include <gio/gdesktopappinfo.h>
#include <string.h>

#include "client-interface.h" /* MB_CLIENT_XML: dbus/org.menubus.MenuBus1.Client.xml, made by the build */

/* Nothing reaches stderr in normal use: G_MESSAGES_DEBUG=MenuBus shows it. */
#define debug(...) g_log ("MenuBus", G_LOG_LEVEL_DEBUG, __VA_ARGS__)

#define BUS_NAME "org.menubus.MenuBus1"
#define MANAGER_PATH "/org/menubus/MenuBus1"
#define MANAGER_IFACE "org.menubus.MenuBus1"
#define MENU_IFACE "org.menubus.MenuBus1.Menu"
#define CLIENT_IFACE "org.menubus.MenuBus1.Client"
#define CLIENT_PATH "/org/menubus/Shim"
#define ERROR_PREFIX "org.menubus.MenuBus1.Error."

/* Calls that need no answer in time still end: menubusd answers at once. */
#define CALL_TIMEOUT_MS 5000
/* The API's bound on a selection's text and on GetSelectedText. */
#define MAX_TEXT_BYTES 65536
/* How long selection changes gather before one update goes. */
#define COALESCE_MS 16
/* After a field's selection has stood still this long, its edit menu is
 * read ahead (GetEditMenu, which asks nothing of apps or providers), so a
 * menu opened then waits for no call. */
#define PREFETCH_MS 100
/* Contexts one app may publish (the API allows 256): the least recently
 * focused field's context goes first. */
#define MAX_CONTEXTS 64

typedef enum { MENU_WAITING, MENU_SHOWN, MENU_ENDED } MenuState;

struct _MbMenu {
    gint refs;
    MbField *field; /* NULL once the field has gone */
    gchar *context_id;
    MenuState state;
    gchar *path;
    guint layout_sub;
    guint closed_sub;
    gboolean toolkit_closed;
    gboolean chosen;
    gboolean asking; /* a PresentMenu of its own is still out */
    MbMenuChanged changed;
    gpointer data;
    /* mb_menu_present_live: the toolkit reads the export; only Closed is
     * followed here. */
    MbMenuLive live;
    gchar **omit;
    gboolean remote_closed; /* Closed came, or menubusd went */
    /* The items shown before the presentation came (GetEditMenu's), and an
     * item chosen meanwhile, activated when it comes. */
    GVariant *shown_items;
    gchar *pending_item;
    guint32 pending_timestamp;
    guint present_idle; /* present_soon's idle, until it runs */
};

struct _MbField {
    gpointer widget;
    const MbFieldOps *ops;
    gchar *context_id;
    gchar *document_id;
    gboolean published;
    MbFieldFlags published_flags;
    gboolean dirty;
    gboolean in_flight;
    guint timeout_id;
    gint64 focused_at;
    /* undo */
    guint action_depth;
    gchar *action_name;
    GArray *action_edits; /* MbEdit */
    gboolean applying;
    guint run;          /* the merge key's number */
    gint64 run_end;     /* where the caret stands after the run, -1 none */
    gboolean has_history;
    /* What menubusd was last told of the selection, and the edit menu read
     * ahead for it (valid while `generation` has not moved since). */
    GVariant *last_sent;
    guint serial;       /* this field's number in the process, never reused */
    guint generation;
    guint prefetch_id;
    GVariant *prefetched;
    guint prefetched_generation;
};

static struct {
    gboolean initialized;
    gboolean enabled;
    gchar *toolkit;
    GDBusConnection *bus;
    guint watch;
    gchar *owner;       /* menubusd's unique name, NULL when it is not running */
    gboolean registered; /* Register sent to this owner */
    gchar *app_id;
    guint client_object;
    GDBusNodeInfo *client_info;
    GList *fields;
    MbField *focused;
    gchar **clipboard;
    /* A call timed out: until menubusd answers again, menus do not wait. */
    gboolean stalled;
    /* Presentations that timed out, by context id, each the count of
     * menus menubusd may still announce (MenuPresented). */
    GHashTable *timed_out;
    GList *menus;       /* every MbMenu not yet ended */
    gboolean reads_ahead; /* mb_menu_present is used: menus are read ahead */
    guint next_field;
    guint32 token;
    MbDaemonWatch daemon_watch;
    gpointer daemon_watch_data;
} shim;

static void field_flush (MbField *field);
static void field_publish (MbField *field);
static void menu_adopt (MbMenu *menu, const gchar *path);
static void menu_unref (MbMenu *menu);
static MbMenu *menu_ref (MbMenu *menu);
static void menu_live_ended (MbMenu *menu, MbMenuEvent event);
static void field_forget_menu (MbField *field, gboolean again);
static void menu_give_up (MbMenu *menu);

/* ---------- turning it on ---------- */

static gboolean
listed_in (GKeyFile *file, const gchar *name)
{
    gsize n = 0;
    g_auto (GStrv) apps = g_key_file_get_string_list (file, "Exclude", "Apps", &n, NULL);
    for (gsize i = 0; i < n; i++)
        if (g_strcmp0 (g_strstrip (apps[i]), name) == 0)
            return TRUE;
    return FALSE;
}

/* The per-app list: [Exclude] Apps= in menubus/integration.conf of the
 * user's and the system's config folders. */
static gboolean
excluded_by_config (const gchar *const *names)
{
    g_autoptr (GPtrArray) folders = g_ptr_array_new ();
    g_ptr_array_add (folders, (gpointer) g_get_user_config_dir ());
    for (const gchar *const *dir = g_get_system_config_dirs (); *dir; dir++)
        g_ptr_array_add (folders, (gpointer) *dir);
    for (guint i = 0; i < folders->len; i++) {
        g_autofree gchar *path = g_build_filename (folders->pdata[i], "menubus", "integration.conf", NULL);
        g_autoptr (GKeyFile) file = g_key_file_new ();
        if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
            continue;
        for (const gchar *const *name = names; *name; name++)
            if (listed_in (file, *name))
                return TRUE;
    }
    return FALSE;
}

static gboolean
valid_app_id (const gchar *id)
{
    if (!id || strlen (id) > 255)
        return FALSE;
    g_auto (GStrv) parts = g_strsplit (id, ".", -1);
    if (g_strv_length (parts) < 2)
        return FALSE;
    for (gchar **part = parts; *part; part++) {
        if (!**part || g_ascii_isdigit (**part))
            return FALSE;
        for (const gchar *c = *part; *c; c++)
            if (!g_ascii_isalnum (*c) && *c != '_' && *c != '-')
                return FALSE;
    }
    return TRUE;
}

/* The GApplication's id, else the program's desktop-file id, else its
 * name under `local.` (menubusd takes reverse-DNS ids only). */
static gchar *
find_app_id (void)
{
    GApplication *app = g_application_get_default ();
    const gchar *id = app ? g_application_get_application_id (app) : NULL;
    if (valid_app_id (id))
        return g_strdup (id);
    const gchar *name = g_get_prgname ();
    if (!name)
        name = "unnamed";
    g_autofree gchar *desktop = g_strconcat (name, ".desktop", NULL);
    g_autoptr (GAppInfo) info = G_APP_INFO (g_desktop_app_info_new (desktop));
    if (info) {
        g_autofree gchar *file_id = g_strdup (g_app_info_get_id (info));
        if (g_str_has_suffix (file_id, ".desktop"))
            file_id[strlen (file_id) - strlen (".desktop")] = '\0';
        if (valid_app_id (file_id))
            return g_steal_pointer (&file_id);
    }
    GString *safe = g_string_new ("local.");
    if (g_ascii_isdigit (*name))
        g_string_append_c (safe, '_');
    for (const gchar *c = name; *c; c++)
        g_string_append_c (safe, g_ascii_isalnum (*c) || *c == '-' ? *c : '_');
    return g_string_free (safe, FALSE);
}

/* ---------- calls ---------- */

static gboolean
is_domain_error (const GError *error, const gchar *name)
{
    if (!error || !g_dbus_error_is_remote_error (error))
        return FALSE;
    g_autofree gchar *remote = g_dbus_error_get_remote_error (error);
    return g_str_has_prefix (remote, ERROR_PREFIX) && g_strcmp0 (remote + strlen (ERROR_PREFIX), name) == 0;
}

/* menubusd answered something: it is not stalled. */
static void
heard_from_daemon (void)
{
    shim.stalled = FALSE;
}

static void
call_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply)
        heard_from_daemon ();
    else
        debug ("%s: %s", (const gchar *) data, error->message);
}

/* A call whose answer only matters for the log. */
static void
call (const gchar *method, GVariant *args, gboolean auto_start)
{
    if (!shim.bus)
        return;
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, method, args, NULL,
                            auto_start ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            CALL_TIMEOUT_MS, NULL, call_done, (gpointer) method);
}

static void
ensure_registered (void)
{
    if (shim.registered || !shim.bus)
        return;
    if (!shim.app_id)
        shim.app_id = find_app_id ();
    shim.registered = TRUE;
    /* Register may start menubusd through D-Bus activation. */
    call ("Register", g_variant_new ("(soa{sv})", shim.app_id, CLIENT_PATH, NULL), TRUE);
}

/* ---------- the client object menubusd calls ---------- */

static MbField *
field_by_context (const gchar *context_id)
{
    for (GList *l = shim.fields; l; l = l->next) {
        MbField *field = l->data;
        if (g_strcmp0 (field->context_id, context_id) == 0)
            return field;
    }
    return NULL;
}

static const gchar *
lookup_string (GVariant *dict, const gchar *key)
{
    const gchar *value = NULL;
    if (!g_variant_lookup (dict, key, "&s", &value))
        return NULL;
    return value;
}

static void
on_menu_presented (const gchar *context_id, const gchar *kind, const gchar *path)
{
    for (GList *l = shim.menus; l; l = l->next) {
        MbMenu *menu = l->data;
        if (g_strcmp0 (menu->path, path) == 0)
            return; /* ours, and known already */
    }
    guint pending = GPOINTER_TO_UINT (g_hash_table_lookup (shim.timed_out, context_id));
    if (pending == 0 || g_strcmp0 (kind, "edit") != 0)
        return; /* someone else presented it */
    if (pending == 1)
        g_hash_table_remove (shim.timed_out, context_id);
    else
        g_hash_table_insert (shim.timed_out, g_strdup (context_id), GUINT_TO_POINTER (pending - 1));
    /* A presentation that timed out came after all: the menu still waiting
     * for it takes it; else it is dismissed. */
    for (GList *l = shim.menus; l; l = l->next) {
        MbMenu *menu = l->data;
        /* Only a menu whose own request has ended: one still asking takes
         * its own answer. */
        if (menu->state == MENU_WAITING && !menu->toolkit_closed && !menu->asking && !menu->live &&
            g_strcmp0 (menu->context_id, context_id) == 0) {
            menu_adopt (menu, path);
            return;
        }
    }
    g_dbus_connection_call (shim.bus, BUS_NAME, path, MENU_IFACE, "Dismiss", NULL, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, call_done, "Dismiss");
}

static void
client_method (GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *iface,
               const gchar *method, GVariant *args, GDBusMethodInvocation *invocation, gpointer data)
{
    if (!shim.owner || g_strcmp0 (sender, shim.owner) != 0) {
        g_dbus_method_invocation_return_dbus_error (invocation, ERROR_PREFIX "AccessDenied",
                                                    "only menubusd calls this object");
        return;
    }
    heard_from_daemon ();
    if (g_strcmp0 (method, "MenuPresented") == 0) {
        const gchar *context_id, *kind, *menu;
        g_variant_get (args, "(&s&s&o)", &context_id, &kind, &menu);
        on_menu_presented (context_id, kind, menu);
        g_dbus_method_invocation_return_value (invocation, NULL);
        return;
    }
    const gchar *context_id = NULL;
    g_variant_get_child (args, 0, "&s", &context_id);
    MbField *field = field_by_context (context_id);
    if (!field) {
        g_dbus_method_invocation_return_dbus_error (invocation, ERROR_PREFIX "NoSuchContext",
                                                    "contextId: no such context");
        return;
    }
    if (g_strcmp0 (method, "PerformCommand") == 0) {
        const gchar *command;
        g_autoptr (GVariant) arguments = NULL;
        g_variant_get (args, "(&s&s@a{sv})", NULL, &command, &arguments);
        g_dbus_method_invocation_return_value (invocation, NULL);
        if (g_strcmp0 (command, "undo") == 0)
            mb_field_undo (field);
        else if (g_strcmp0 (command, "redo") == 0)
            mb_field_redo (field);
        else
            field->ops->perform (field->widget, command, lookup_string (arguments, "text"),
                                 lookup_string (arguments, "undo-name"));
    } else if (g_strcmp0 (method, "GetSelectedText") == 0) {
        MbSelection selection = { 0 };
        field->ops->selection (field->widget, &selection);
        if (selection.text && strlen (selection.text) > MAX_TEXT_BYTES)
            g_dbus_method_invocation_return_dbus_error (invocation, ERROR_PREFIX "LimitExceeded",
                                                        "text: the selection is over 65536 bytes");
        else
            g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", selection.text ? selection.text : ""));
        mb_selection_clear (&selection);
    } else {
        /* ActionInvoked, ProvideElements: a shim publishes no items of its own. */
        g_dbus_method_invocation_return_dbus_error (invocation, ERROR_PREFIX "NoSuchItem",
                                                    "itemId: this app publishes no items of its own");
    }
}

static const GDBusInterfaceVTable client_vtable = { client_method, NULL, NULL, { 0 } };

/* ---------- menubusd coming and going ---------- */

static void
daemon_appeared (GDBusConnection *bus, const gchar *name, const gchar *owner, gpointer data)
{
    if (g_strcmp0 (owner, shim.owner) == 0)
        return;
    g_free (shim.owner);
    shim.owner = g_strdup (owner);
    shim.registered = FALSE;
    shim.stalled = FALSE;
    for (GList *l = shim.fields; l; l = l->next)
        ((MbField *) l->data)->published = FALSE;
    /* A restart: the focused field is published again. */
    if (shim.focused)
        mb_field_focused (shim.focused);
    if (shim.daemon_watch)
        shim.daemon_watch (TRUE, shim.daemon_watch_data);
}

static void
daemon_vanished (GDBusConnection *bus, const gchar *name, gpointer data)
{
    g_clear_pointer (&shim.owner, g_free);
    shim.registered = FALSE;
    shim.stalled = FALSE;
    g_hash_table_remove_all (shim.timed_out);
    for (GList *l = shim.fields; l; l = l->next) {
        MbField *field = l->data;
        field->published = FALSE;
        field->in_flight = FALSE;
        field_forget_menu (field, FALSE);
        g_clear_pointer (&field->last_sent, g_variant_unref);
    }
    GList *menus = g_list_copy (shim.menus);
    for (GList *l = menus; l; l = l->next)
        menu_ref (l->data); /* a callback may close its menu */
    for (GList *l = menus; l; l = l->next) {
        MbMenu *menu = l->data;
        if (menu->state == MENU_SHOWN && menu->live)
            menu_live_ended (menu, MB_MENU_CLOSED);
        else if (menu->state == MENU_SHOWN && menu->changed)
            menu->changed (menu, NULL, menu->data);
        else if (menu->state == MENU_WAITING)
            menu_give_up (menu);
    }
    g_list_free_full (menus, (GDestroyNotify) menu_unref);
    if (shim.daemon_watch)
        shim.daemon_watch (FALSE, shim.daemon_watch_data);
}

static void
bus_ready (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    shim.bus = g_bus_get_finish (result, &error);
    if (!shim.bus) {
        debug ("no session bus: %s", error->message);
        return;
    }
    shim.client_info = g_dbus_node_info_new_for_xml (MB_CLIENT_XML, &error);
    if (shim.client_info)
        shim.client_object = g_dbus_connection_register_object (
            shim.bus, CLIENT_PATH, g_dbus_node_info_lookup_interface (shim.client_info, CLIENT_IFACE),
            &client_vtable, NULL, NULL, &error);
    if (!shim.client_object) {
        debug ("cannot serve %s: %s", CLIENT_PATH, error ? error->message : "no interface");
        g_clear_object (&shim.bus);
        return;
    }
    shim.watch = g_bus_watch_name_on_connection (shim.bus, BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                 daemon_appeared, daemon_vanished, NULL, NULL);
    if (shim.focused)
        mb_field_focused (shim.focused);
}

gboolean
mb_shim_enabled (const gchar *toolkit)
{
    if (shim.initialized)
        return shim.enabled;
    shim.initialized = TRUE;
    const gchar *off = g_getenv ("MENUBUS_DISABLE");
    if (off && *off && g_strcmp0 (off, "0") != 0)
        return FALSE;
    const gchar *names[] = { g_get_prgname (), NULL };
    if (names[0] && excluded_by_config (names))
        return FALSE;
    shim.enabled = TRUE;
    shim.toolkit = g_strdup (toolkit);
    shim.timed_out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    shim.token = g_random_int ();
    g_bus_get (G_BUS_TYPE_SESSION, NULL, bus_ready, NULL);
    return TRUE;
}

void
mb_shim_watch_daemon (MbDaemonWatch watch, gpointer data)
{
    shim.daemon_watch = watch;
    shim.daemon_watch_data = data;
}

GDBusConnection *
mb_shim_connection (void)
{
    return shim.bus;
}

const gchar *
mb_shim_daemon (void)
{
    return shim.owner;
}

void
mb_shim_set_clipboard_types (const gchar *const *types)
{
    if (shim.clipboard && types && g_strv_equal ((const gchar *const *) shim.clipboard, types))
        return;
    g_strfreev (shim.clipboard);
    shim.clipboard = g_strdupv ((gchar **) types);
    if (shim.focused)
        mb_field_changed (shim.focused);
}

/* ---------- fields ---------- */

MbField *
mb_field_new (gpointer widget, const MbFieldOps *ops)
{
    MbField *field = g_new0 (MbField, 1);
    field->widget = widget;
    field->ops = ops;
    guint number = ++shim.next_field;
    field->serial = number;
    field->context_id = g_strdup_printf ("%s-%u", shim.toolkit ? shim.toolkit : "field", number);
    /* A token of this process keeps two running copies of one app apart. */
    field->document_id = g_strdup_printf ("%s-%08x-%u", shim.toolkit ? shim.toolkit : "field", shim.token, number);
    field->action_edits = g_array_new (FALSE, TRUE, sizeof (MbEdit));
    field->run_end = -1;
    shim.fields = g_list_prepend (shim.fields, field);
    return field;
}

static void
clear_edits (GArray *edits)
{
    for (guint i = 0; i < edits->len; i++)
        g_free (g_array_index (edits, MbEdit, i).text);
    g_array_set_size (edits, 0);
}

void
mb_field_free (MbField *field)
{
    if (!field)
        return;
    if (shim.owner && field->published)
        call ("RemoveContext", g_variant_new ("(s)", field->context_id), FALSE);
    if (shim.owner && field->has_history)
        call ("ClearUndo", g_variant_new ("(s)", field->document_id), FALSE);
    for (GList *l = shim.menus; l; l = l->next)
        if (((MbMenu *) l->data)->field == field)
            ((MbMenu *) l->data)->field = NULL;
    if (field->timeout_id)
        g_source_remove (field->timeout_id);
    field_forget_menu (field, FALSE);
    g_clear_pointer (&field->last_sent, g_variant_unref);
    shim.fields = g_list_remove (shim.fields, field);
    if (shim.focused == field)
        shim.focused = NULL;
    clear_edits (field->action_edits);
    g_array_unref (field->action_edits);
    g_free (field->action_name);
    g_free (field->context_id);
    g_free (field->document_id);
    g_free (field);
}

const gchar *
mb_field_context_id (MbField *field)
{
    return field->context_id;
}

static GVariant *
context_dict (MbField *field, MbFieldFlags flags)
{
    GVariantBuilder context, commands;
    g_variant_builder_init (&context, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_init (&commands, G_VARIANT_TYPE_STRING_ARRAY);
    gboolean editable = (flags & MB_FIELD_EDITABLE) != 0;
    g_variant_builder_add (&context, "{sv}", "kind", g_variant_new_string ("text"));
    g_variant_builder_add (&context, "{sv}", "editable", g_variant_new_boolean (editable));
    g_variant_builder_add (&context, "{sv}", "has-content", g_variant_new_boolean ((flags & MB_FIELD_HAS_CONTENT) != 0));
    /* What the shim can really do in this field; providers serve the roles. */
    static const gchar *const editing[] = { "cut", "paste", "delete", "replace-selection", NULL };
    static const gchar *const always[] = { "copy", "select-all", "lookup", "translate", "search-web", "share", NULL };
    for (const gchar *const *c = always; *c; c++)
        g_variant_builder_add (&commands, "s", *c);
    if (editable)
        for (const gchar *const *c = editing; *c; c++)
            g_variant_builder_add (&commands, "s", *c);
    if (editable && (flags & MB_FIELD_MENUBUS_UNDO)) {
        g_variant_builder_add (&commands, "s", "undo");
        g_variant_builder_add (&commands, "s", "redo");
        g_variant_builder_add (&context, "{sv}", "document", g_variant_new_string (field->document_id));
    }
    g_variant_builder_add (&context, "{sv}", "supported-commands", g_variant_builder_end (&commands));
    return g_variant_builder_end (&context);
}

static GVariant *
selection_dict (MbField *field)
{
    static const gchar *const kinds[] = { "none", "caret", "range", "all" };
    MbSelection selection = { 0 };
    field->ops->selection (field->widget, &selection);
    GVariantBuilder dict;
    g_variant_builder_init (&dict, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&dict, "{sv}", "kind", g_variant_new_string (kinds[selection.kind]));
    g_variant_builder_add (&dict, "{sv}", "length", g_variant_new_uint32 (selection.length));
    /* Longer text is not cut: providers ask GetSelectedText, which says why it cannot. */
    if (selection.text && *selection.text && strlen (selection.text) <= MAX_TEXT_BYTES)
        g_variant_builder_add (&dict, "{sv}", "text", g_variant_new_string (selection.text));
    if (shim.clipboard)
        g_variant_builder_add (&dict, "{sv}", "pasteboard-types",
                               g_variant_new_strv ((const gchar *const *) shim.clipboard, -1));
    mb_selection_clear (&selection);
    return g_variant_builder_end (&dict);
}

/* ---------- reading the edit menu ahead ---------- */

typedef struct {
    MbField *field;
    guint serial;
    guint generation;
} Prefetch;

static gboolean
field_alive (MbField *field)
{
    return g_list_find (shim.fields, field) != NULL;
}

static void
prefetch_done (GObject *source, GAsyncResult *result, gpointer data)
{
    Prefetch *prefetch = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    MbField *field = prefetch->field;
    if (reply) {
        heard_from_daemon ();
        if (field_alive (field) && field->serial == prefetch->serial && field->generation == prefetch->generation) {
            g_clear_pointer (&field->prefetched, g_variant_unref);
            field->prefetched = g_variant_get_child_value (reply, 1);
            field->prefetched_generation = prefetch->generation;
        }
    } else {
        debug ("GetEditMenu ahead: %s", error->message);
    }
    g_free (prefetch);
}

static gboolean
prefetch_timeout (gpointer data)
{
    MbField *field = data;
    field->prefetch_id = 0;
    if (!shim.reads_ahead || field != shim.focused || !shim.owner || shim.stalled || !field->published ||
        field->dirty || field->timeout_id)
        return G_SOURCE_REMOVE;
    Prefetch *prefetch = g_new (Prefetch, 1);
    prefetch->field = field;
    prefetch->serial = field->serial;
    prefetch->generation = field->generation;
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "GetEditMenu",
                            g_variant_new ("(ss@a{sv})", "", field->context_id,
                                           g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0)),
                            G_VARIANT_TYPE ("(ua(ssa{sv}))"), G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL,
                            prefetch_done, prefetch);
    return G_SOURCE_REMOVE;
}

/* What menubusd knows of the field changed (or may have): the menu read
 * ahead is no longer it, and a new one is read once things stand still. */
static void
field_forget_menu (MbField *field, gboolean again)
{
    field->generation++;
    g_clear_pointer (&field->prefetched, g_variant_unref);
    if (field->prefetch_id) {
        g_source_remove (field->prefetch_id);
        field->prefetch_id = 0;
    }
    if (again)
        field->prefetch_id = g_timeout_add (PREFETCH_MS, prefetch_timeout, field);
}

/* The edit menu read ahead, when nothing changed since. */
static GVariant *
field_menu_ahead (MbField *field)
{
    return field->prefetched && field->prefetched_generation == field->generation ? field->prefetched : NULL;
}

static void
publish_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply)
        heard_from_daemon ();
    else
        debug ("PublishContext: %s", error->message);
}

/* Only so many contexts stay published: the field focused longest ago
 * gives its up (it publishes again when focused). */
static void
bound_contexts (void)
{
    guint published = 0;
    MbField *oldest = NULL;
    for (GList *l = shim.fields; l; l = l->next) {
        MbField *field = l->data;
        if (!field->published)
            continue;
        published++;
        if (!oldest || field->focused_at < oldest->focused_at)
            oldest = field;
    }
    if (published >= MAX_CONTEXTS && oldest) {
        call ("RemoveContext", g_variant_new ("(s)", oldest->context_id), FALSE);
        oldest->published = FALSE;
    }
}

static void
field_publish (MbField *field)
{
    if (!shim.bus)
        return;
    ensure_registered ();
    if (!field->published)
        bound_contexts ();
    MbFieldFlags flags = field->ops->flags (field->widget);
    field_forget_menu (field, FALSE);
    /* The first publish may start menubusd, like Register before it. */
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "PublishContext",
                            g_variant_new ("(s@a{sv}a(ssa{sv}))", field->context_id, context_dict (field, flags), NULL),
                            G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, publish_done, NULL);
    field->published = TRUE;
    field->published_flags = flags;
}

static gboolean
flush_timeout (gpointer data)
{
    MbField *field = data;
    field->timeout_id = 0;
    field_flush (field);
    return G_SOURCE_REMOVE;
}

static void
update_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    MbField *field = NULL;
    for (GList *l = shim.fields; l; l = l->next)
        if (l->data == data)
            field = data;
    if (reply)
        heard_from_daemon ();
    else
        debug ("UpdateSelection: %s", error->message);
    if (!field)
        return;
    field->in_flight = FALSE;
    if (error) /* menubusd may not have it: the next menu sends it again */
        g_clear_pointer (&field->last_sent, g_variant_unref);
    if (error && (is_domain_error (error, "NoSuchContext") || is_domain_error (error, "NotRegistered"))) {
        field->published = FALSE;
        shim.registered = FALSE;
        if (field == shim.focused)
            field->dirty = TRUE;
    }
    if (field->dirty && !field->timeout_id)
        field->timeout_id = g_timeout_add (COALESCE_MS, flush_timeout, field);
}

/* Sends what changed; with `force`, even while a call is in flight (a
 * menu about to open needs the latest selection). */
static void
field_send (MbField *field, gboolean force)
{
    if (!shim.bus || !shim.owner)
        return;
    if (field->in_flight && !force)
        return;
    field->dirty = FALSE;
    if (!field->published || field->ops->flags (field->widget) != field->published_flags)
        field_publish (field);
    field->in_flight = TRUE;
    g_clear_pointer (&field->last_sent, g_variant_unref);
    field->last_sent = g_variant_ref_sink (selection_dict (field));
    field_forget_menu (field, field == shim.focused);
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "UpdateSelection",
                            g_variant_new ("(s@a{sv})", field->context_id, field->last_sent), NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, update_done, field);
}

/* Whether menubusd's idea of the field may differ from the field now. */
static gboolean
field_stale (MbField *field)
{
    if (field->dirty || field->timeout_id || !field->published || !field->last_sent ||
        field->ops->flags (field->widget) != field->published_flags)
        return TRUE;
    g_autoptr (GVariant) now = g_variant_ref_sink (selection_dict (field));
    return !g_variant_equal (now, field->last_sent);
}

static void
field_flush (MbField *field)
{
    field_send (field, FALSE);
}

void
mb_field_focused (MbField *field)
{
    shim.focused = field;
    field->focused_at = g_get_monotonic_time ();
    if (!shim.bus)
        return;
    if (!shim.owner) {
        /* Not running: publishing starts it when it is installed, and the
         * name watch then sends the selection. */
        if (!field->published)
            field_publish (field);
        return;
    }
    field->dirty = TRUE;
    if (field->timeout_id) {
        g_source_remove (field->timeout_id);
        field->timeout_id = 0;
    }
    field_flush (field);
}

void
mb_field_changed (MbField *field)
{
    if (!shim.owner)
        return;
    field->dirty = TRUE;
    if (!field->in_flight && !field->timeout_id)
        field->timeout_id = g_timeout_add (COALESCE_MS, flush_timeout, field);
}

void
mb_selection_clear (MbSelection *selection)
{
    g_clear_pointer (&selection->text, g_free);
}

/* ---------- undo ---------- */

/* A payload is the edits to apply, each: 'i' or 'd', the offset and the
 * text's byte length as little-endian 32-bit numbers, then the text. */
static GVariant *
encode_edits (const MbEdit *edits, guint n, gboolean inverse)
{
    GByteArray *bytes = g_byte_array_new ();
    for (guint k = 0; k < n; k++) {
        const MbEdit *edit = inverse ? &edits[n - 1 - k] : &edits[k];
        guint8 op = (edit->insert != inverse) ? 'i' : 'd';
        guint32 offset = GUINT32_TO_LE (edit->offset);
        guint32 length = GUINT32_TO_LE ((guint32) strlen (edit->text));
        g_byte_array_append (bytes, &op, 1);
        g_byte_array_append (bytes, (const guint8 *) &offset, 4);
        g_byte_array_append (bytes, (const guint8 *) &length, 4);
        g_byte_array_append (bytes, (const guint8 *) edit->text, strlen (edit->text));
    }
    gsize size = bytes->len;
    return g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, g_byte_array_free (bytes, FALSE), size, TRUE, g_free,
                                    NULL);
}

/* The edits of one payload, or FALSE when it is not one of ours. */
static gboolean
decode_edits (GVariant *payload, GArray *out)
{
    gsize size = 0;
    const guint8 *data = g_variant_get_fixed_array (payload, &size, 1);
    gsize at = 0;
    while (at < size) {
        if (size - at < 9 || (data[at] != 'i' && data[at] != 'd'))
            return FALSE;
        guint32 offset, length;
        memcpy (&offset, data + at + 1, 4);
        memcpy (&length, data + at + 5, 4);
        offset = GUINT32_FROM_LE (offset);
        length = GUINT32_FROM_LE (length);
        if (length > size - at - 9 || !g_utf8_validate ((const gchar *) data + at + 9, length, NULL))
            return FALSE;
        MbEdit edit = { data[at] == 'i', offset, g_strndup ((const gchar *) data + at + 9, length) };
        g_array_append_val (out, edit);
        at += 9 + length;
    }
    return TRUE;
}

static void
register_step (MbField *field, const gchar *name, const MbEdit *edits, guint n, const gchar *merge_key)
{
    if (!shim.bus || n == 0)
        return;
    ensure_registered ();
    GVariantBuilder options;
    g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
    if (merge_key)
        g_variant_builder_add (&options, "{sv}", "merge-key", g_variant_new_string (merge_key));
    field->has_history = TRUE;
    field_forget_menu (field, field == shim.focused);
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "RegisterUndo",
                            g_variant_new ("(ss@ay@aya{sv})", field->document_id, name, encode_edits (edits, n, TRUE),
                                           encode_edits (edits, n, FALSE), &options),
                            G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, call_done,
                            "RegisterUndo");
}

void
mb_field_record (MbField *field, const MbEdit *edit)
{
    if (field->applying || !edit->text || !*edit->text)
        return;
    if (field->action_depth > 0) {
        MbEdit copy = { edit->insert, edit->offset, g_strdup (edit->text) };
        g_array_append_val (field->action_edits, copy);
        return;
    }
    glong chars = g_utf8_strlen (edit->text, -1);
    /* Typing merges while each edit starts where the last one left the
     * caret (backspace and delete included); a jump or a longer insertion
     * (a paste, an input method's commit) starts a step of its own. */
    gboolean follows = field->run_end >= 0 &&
                       (edit->offset == field->run_end || (!edit->insert && edit->offset + chars == field->run_end));
    if (!follows || chars > 1)
        field->run++;
    field->run_end = edit->insert ? edit->offset + chars : edit->offset;
    g_autofree gchar *key = g_strdup_printf ("typing-%u", field->run);
    register_step (field, "Typing", edit, 1, key);
    if (chars > 1)
        field->run++;
}

void
mb_field_begin_action (MbField *field, const gchar *name)
{
    if (field->action_depth++ == 0) {
        g_free (field->action_name);
        field->action_name = g_strdup (name);
        clear_edits (field->action_edits);
    }
}

void
mb_field_end_action (MbField *field)
{
    if (field->action_depth == 0 || --field->action_depth > 0)
        return;
    field->run++;
    field->run_end = -1;
    register_step (field, field->action_name ? field->action_name : "Typing",
                   (const MbEdit *) field->action_edits->data, field->action_edits->len, NULL);
    clear_edits (field->action_edits);
}

gboolean
mb_field_is_applying (MbField *field)
{
    return field->applying;
}

static void
move_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    MbField *field = g_list_find (shim.fields, data) ? data : NULL;
    if (!reply) {
        debug ("Undo/Redo: %s", error->message);
        return;
    }
    heard_from_daemon ();
    if (!field)
        return;
    g_autoptr (GVariant) payloads = g_variant_get_child_value (reply, 1);
    g_autoptr (GArray) edits = g_array_new (FALSE, TRUE, sizeof (MbEdit));
    for (gsize i = 0; i < g_variant_n_children (payloads); i++) {
        g_autoptr (GVariant) payload = g_variant_get_child_value (payloads, i);
        if (!decode_edits (payload, edits)) {
            debug ("Undo/Redo: a payload of %s is not the shim's", field->document_id);
            clear_edits (edits);
            return;
        }
    }
    field->applying = TRUE;
    field->ops->apply (field->widget, (const MbEdit *) edits->data, edits->len);
    field->applying = FALSE;
    clear_edits (edits);
    field->run++;
    field->run_end = -1;
    mb_field_changed (field);
}

static void
move (MbField *field, const gchar *method)
{
    if (!shim.bus || !shim.owner)
        return;
    field->run++;
    field->run_end = -1;
    field_forget_menu (field, field == shim.focused);
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, method,
                            g_variant_new ("(s)", field->document_id), G_VARIANT_TYPE ("(saay)"),
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, move_done, field);
}

void
mb_field_undo (MbField *field)
{
    move (field, "Undo");
}

void
mb_field_redo (MbField *field)
{
    move (field, "Redo");
}

/* ---------- presented menus ---------- */

static MbMenu *
menu_ref (MbMenu *menu)
{
    menu->refs++;
    return menu;
}

static void
menu_unref (MbMenu *menu)
{
    if (--menu->refs > 0)
        return;
    g_free (menu->context_id);
    g_free (menu->path);
    g_strfreev (menu->omit);
    g_clear_pointer (&menu->shown_items, g_variant_unref);
    g_free (menu->pending_item);
    g_free (menu);
}

static void
menu_end (MbMenu *menu)
{
    if (menu->state == MENU_ENDED)
        return;
    menu->state = MENU_ENDED;
    if (menu->layout_sub)
        g_dbus_connection_signal_unsubscribe (shim.bus, menu->layout_sub);
    if (menu->closed_sub)
        g_dbus_connection_signal_unsubscribe (shim.bus, menu->closed_sub);
    menu->layout_sub = menu->closed_sub = 0;
    shim.menus = g_list_remove (shim.menus, menu);
    menu_unref (menu);
}

static void
menu_signal (GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *iface,
             const gchar *signal, GVariant *args, gpointer data)
{
    MbMenu *menu = data;
    if (menu->state != MENU_SHOWN || g_strcmp0 (sender, shim.owner) != 0)
        return;
    heard_from_daemon ();
    if (menu->live) {
        if (g_strcmp0 (signal, "Closed") == 0)
            menu_live_ended (menu, MB_MENU_CLOSED);
        return;
    }
    if (g_strcmp0 (signal, "LayoutChanged") == 0) {
        g_autoptr (GVariant) items = g_variant_get_child_value (args, 1);
        if (menu->changed)
            menu->changed (menu, items, menu->data);
    } else if (g_strcmp0 (signal, "Closed") == 0) {
        MbMenuChanged changed = menu->changed;
        menu->changed = NULL;
        if (changed)
            changed (menu, NULL, menu->data);
    }
}

static void
menu_subscribe (MbMenu *menu)
{
    if (!menu->live)
        menu->layout_sub = g_dbus_connection_signal_subscribe (shim.bus, shim.owner, MENU_IFACE, "LayoutChanged",
                                                           menu->path, NULL, G_DBUS_SIGNAL_FLAGS_NONE, menu_signal,
                                                           menu, NULL);
    menu->closed_sub = g_dbus_connection_signal_subscribe (shim.bus, shim.owner, MENU_IFACE, "Closed", menu->path,
                                                           NULL, G_DBUS_SIGNAL_FLAGS_NONE, menu_signal, menu, NULL);
}

static void
layout_done (GObject *source, GAsyncResult *result, gpointer data)
{
    MbMenu *menu = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply) {
        heard_from_daemon ();
        g_autoptr (GVariant) items = g_variant_get_child_value (reply, 1);
        gboolean same = menu->shown_items && g_variant_equal (items, menu->shown_items);
        g_clear_pointer (&menu->shown_items, g_variant_unref);
        if (menu->state == MENU_SHOWN && menu->changed && !same)
            menu->changed (menu, items, menu->data);
    } else {
        debug ("GetLayout: %s", error->message);
    }
    menu_unref (menu);
}

static void
dismiss (const gchar *path)
{
    g_dbus_connection_call (shim.bus, BUS_NAME, path, MENU_IFACE, "Dismiss", NULL, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, call_done, "Dismiss");
}

/* A menu that showed items before its presentation came, and will get
 * none: the toolkit shows its own menu again (`changed` with NULL). */
static void
menu_give_up (MbMenu *menu)
{
    MbMenuChanged changed = menu->changed;
    if (!changed || !menu->shown_items || menu->toolkit_closed)
        return;
    menu->changed = NULL;
    changed (menu, NULL, menu->data);
}

static void
activate_done (GObject *source, GAsyncResult *result, gpointer data)
{
    gchar *path = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply) {
        heard_from_daemon ();
    } else if (shim.owner) {
        /* Not chosen after all: the presentation ends, as a dismissal. */
        debug ("Activate: %s", error->message);
        dismiss (path);
    }
    g_free (path);
}

static void
activate (const gchar *path, const gchar *item_id, guint32 timestamp)
{
    GVariantBuilder platform;
    g_variant_builder_init (&platform, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&platform, "{sv}", "timestamp", g_variant_new_uint32 (timestamp));
    g_dbus_connection_call (shim.bus, BUS_NAME, path, MENU_IFACE, "Activate",
                            g_variant_new ("(sa{sv})", item_id, &platform), NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            CALL_TIMEOUT_MS, NULL, activate_done, g_strdup (path));
}

/* A presentation asked for too late: the one menubusd announces later
 * (MenuPresented) is adopted or dismissed. */
static void
count_timed_out (const gchar *context_id)
{
    guint pending = GPOINTER_TO_UINT (g_hash_table_lookup (shim.timed_out, context_id));
    g_hash_table_insert (shim.timed_out, g_strdup (context_id), GUINT_TO_POINTER (pending + 1));
}

/* A menu waiting for its presentation gets it: its items follow. */
static void
menu_adopt (MbMenu *menu, const gchar *path)
{
    menu->path = g_strdup (path);
    menu->state = MENU_SHOWN;
    menu_subscribe (menu);
    g_dbus_connection_call (shim.bus, BUS_NAME, path, MENU_IFACE, "GetLayout", NULL,
                            G_VARIANT_TYPE ("(ua(ssa{sv}))"), G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL,
                            layout_done, menu_ref (menu));
}

/* The live menu's `live` hears that it ended; it is not called again. */
static void
menu_live_ended (MbMenu *menu, MbMenuEvent event)
{
    MbMenuLive live = menu->live;
    menu->remote_closed = TRUE;
    menu->live = NULL;
    if (live && !menu->toolkit_closed)
        live (menu, event, NULL, menu->data);
}

static void
present_live_done (MbMenu *menu, GVariant *reply, GError *error)
{
    if (reply) {
        heard_from_daemon ();
        const gchar *path;
        g_variant_get (reply, "(&o)", &path);
        if (menu->state != MENU_WAITING || menu->toolkit_closed) {
            dismiss (path);
            menu_end (menu);
            return;
        }
        menu->path = g_strdup (path);
        menu->state = MENU_SHOWN;
        menu_subscribe (menu);
        if (menu->live)
            menu->live (menu, MB_MENU_LIVE, path, menu->data);
        return;
    }
    debug ("PresentMenu: %s", error->message);
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        count_timed_out (menu->context_id);
    if ((is_domain_error (error, "NoSuchContext") || is_domain_error (error, "NotRegistered")) && menu->field) {
        menu->field->published = FALSE;
        shim.registered = FALSE;
        field_send (menu->field, TRUE);
    }
    MbMenuLive live = menu->live;
    menu->live = NULL;
    menu->remote_closed = TRUE;
    if (menu->state == MENU_WAITING)
        menu_end (menu);
    if (live && !menu->toolkit_closed)
        live (menu, is_domain_error (error, "NothingToShow") ? MB_MENU_EMPTY : MB_MENU_FAILED, NULL, menu->data);
}

static void
present_done (GObject *source, GAsyncResult *result, gpointer data)
{
    MbMenu *menu = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    menu->asking = FALSE;
    if (menu->live) {
        present_live_done (menu, reply, error);
        menu_unref (menu);
        return;
    }
    if (reply) {
        heard_from_daemon ();
        const gchar *path;
        g_variant_get (reply, "(&o)", &path);
        if (menu->state == MENU_WAITING && menu->pending_item) {
            /* An item was chosen from the items shown before it came. */
            activate (path, menu->pending_item, menu->pending_timestamp);
            menu_end (menu);
        } else if (menu->state == MENU_WAITING && !menu->toolkit_closed) {
            menu_adopt (menu, path);
        } else {
            dismiss (path);
            menu_end (menu);
        }
    } else {
        debug ("PresentMenu: %s", error->message);
        if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
            count_timed_out (menu->context_id);
        if (menu->state == MENU_WAITING) {
            menu_give_up (menu);
            menu_end (menu);
        }
    }
    menu_unref (menu);
}

static GVariant *
present_args (MbField *field, gchar **omit)
{
    GVariantBuilder options;
    g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
    if (omit && *omit)
        g_variant_builder_add (&options, "{sv}", "omit-commands", g_variant_new_strv ((const gchar *const *) omit, -1));
    return g_variant_new ("(sss@a{sv})", "", field->context_id, "edit", g_variant_builder_end (&options));
}

/* The selection as it is now reaches menubusd before a menu is asked for
 * (messages of one connection arrive in order), unless menubusd has it. */
static void
field_catch_up (MbField *field)
{
    if (!field_stale (field))
        return;
    if (field->timeout_id) {
        g_source_remove (field->timeout_id);
        field->timeout_id = 0;
    }
    field_send (field, TRUE);
}

/* A menu of `field`, waiting for its presentation: one reference is the
 * toolkit's (until mb_menu_close), one the list's (until menu_end). */
static MbMenu *
menu_new (MbField *field, gpointer data)
{
    MbMenu *menu = g_new0 (MbMenu, 1);
    menu->refs = 1;
    menu->field = field;
    menu->context_id = g_strdup (field->context_id);
    menu->data = data;
    menu->state = MENU_WAITING;
    shim.menus = g_list_prepend (shim.menus, menu_ref (menu));
    return menu;
}

/* GDBus wakes a thread waiting on a call a few milliseconds after the
 * call's timeout when the machine is busy: the call times out this much
 * early, so the whole wait stays within MB_PRESENT_DEADLINE_MS. */
#define DEADLINE_SLACK_MS 4

static gboolean
present_now (gpointer data)
{
    MbMenu *menu = data;
    menu->present_idle = 0;
    if (!menu->field || !shim.owner || (menu->toolkit_closed && !menu->pending_item)) {
        /* Closed before it was asked for, or nobody to ask: nothing to present. */
        menu->asking = FALSE;
        if (menu->state == MENU_WAITING) {
            menu_give_up (menu);
            menu_end (menu);
        }
        menu_unref (menu);
        return G_SOURCE_REMOVE;
    }
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "PresentMenu",
                            present_args (menu->field, NULL), G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            CALL_TIMEOUT_MS, NULL, present_done, menu);
    return G_SOURCE_REMOVE;
}

/* The presentation is asked for once the toolkit has drawn the menu
 * (after its layout and paint, which run at higher priorities), so
 * menubusd's work on it does not compete with the menu opening; at once
 * when an item is chosen before that. */
static void
present_soon (MbMenu *menu)
{
    menu->asking = TRUE;
    menu->present_idle = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, present_now, menu_ref (menu), NULL);
}

MbMenu *
mb_menu_present (MbField *field, MbMenuChanged changed, gpointer data, GVariant **items)
{
    *items = NULL;
    if (!shim.bus || !shim.owner)
        return NULL;
    shim.reads_ahead = TRUE;
    field_catch_up (field);
    MbMenu *menu = menu_new (field, data);
    menu->changed = changed;

    if (shim.stalled) {
        /* menubusd did not answer last time: the menu opens at once, and
         * its items join it if they come. */
        present_soon (menu);
        return menu;
    }

    /* One round trip while the menu waits: the composed items, as the
     * presentation asked for next will have them (GetEditMenu answers the
     * same elements), so the menu opens with them. The presentation
     * follows without waiting; its layout replaces them only where it
     * differs (a deferred element), and an item chosen before it came is
     * activated when it does. */
    GVariant *ahead = field_menu_ahead (field);
    if (ahead) {
        /* Read ahead for this very selection: no call to wait for. */
        *items = g_variant_ref (ahead);
        menu->shown_items = g_variant_ref (ahead);
        present_soon (menu);
        return menu;
    }
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
        shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "GetEditMenu",
        g_variant_new ("(ss@a{sv})", "", field->context_id, g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0)),
        G_VARIANT_TYPE ("(ua(ssa{sv}))"), G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_PRESENT_DEADLINE_MS - DEADLINE_SLACK_MS,
        NULL, &error);
    if (reply) {
        heard_from_daemon ();
        *items = g_variant_get_child_value (reply, 1);
        menu->shown_items = g_variant_ref (*items);
    } else {
        debug ("GetEditMenu: %s", error->message);
        if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) {
            /* The menu opens as it is; the items join it if they come. */
            shim.stalled = TRUE;
        } else {
            if (is_domain_error (error, "NoSuchContext") || is_domain_error (error, "NotRegistered")) {
                field->published = FALSE;
                shim.registered = FALSE;
                field_send (field, TRUE);
            }
            menu_end (menu);
            menu_unref (menu);
            return NULL;
        }
    }
    present_soon (menu);
    return menu;
}

MbMenu *
mb_menu_present_live (MbField *field, const gchar *const *omit_commands, MbMenuLive live, gpointer data)
{
    if (!shim.bus || !shim.owner)
        return NULL;
    field_catch_up (field);
    MbMenu *menu = menu_new (field, data);
    menu->live = live;
    menu->omit = g_strdupv ((gchar **) omit_commands);
    menu->asking = TRUE;
    g_dbus_connection_call (shim.bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "PresentMenu",
                            present_args (field, menu->omit), G_VARIANT_TYPE ("(o)"),
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, NULL, present_done, menu_ref (menu));
    return menu;
}

void
mb_menu_activate (MbMenu *menu, const gchar *item_id, guint32 timestamp)
{
    if (!menu || menu->chosen)
        return;
    if (menu->state == MENU_WAITING && menu->asking) {
        /* Chosen from the items shown before the presentation came. */
        menu->chosen = TRUE;
        menu->pending_item = g_strdup (item_id);
        menu->pending_timestamp = timestamp;
        if (menu->present_idle) {
            g_source_remove (menu->present_idle);
            present_now (menu); /* takes the idle's reference */
        }
        return;
    }
    if (menu->state != MENU_SHOWN)
        return;
    menu->chosen = TRUE;
    activate (menu->path, item_id, timestamp);
}

void
mb_menu_close (MbMenu *menu)
{
    if (!menu)
        return;
    menu->toolkit_closed = TRUE;
    menu->changed = NULL;
    menu->live = NULL;
    if (menu->state == MENU_SHOWN) {
        if (!menu->chosen && !menu->remote_closed && shim.owner)
            dismiss (menu->path);
        menu_end (menu);
    }
    /* A menu still asking ends when the answer comes (and is dismissed);
     * one whose call timed out ends now, and a presentation menubusd
     * announces later for it is dismissed. */
    if (menu->state == MENU_WAITING && !menu->asking)
        menu_end (menu);
    menu_unref (menu);
}
