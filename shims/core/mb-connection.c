/* The process's one connection to menubusd: whether the shim is on for
 * this program, the app's id and registration, menubusd coming and going,
 * and the Client object menubusd calls. */
#include "menubus-core.h"

#include <string.h>

#include "client-interface.h" /* MB_CLIENT_XML: dbus/org.menubus.MenuBus1.Client.xml, made by the build */

MbCoreState mb_core;

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

/* menubus/integration.conf of the user's config folder, then of each
 * system one, those that could be read (GKeyFile), in that order. */
GPtrArray *
mb_integration_files (void)
{
    GPtrArray *files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_key_file_unref);
    g_autoptr (GPtrArray) folders = g_ptr_array_new ();
    g_ptr_array_add (folders, (gpointer) g_get_user_config_dir ());
    for (const gchar *const *dir = g_get_system_config_dirs (); *dir; dir++)
        g_ptr_array_add (folders, (gpointer) *dir);
    for (guint i = 0; i < folders->len; i++) {
        g_autofree gchar *path = g_build_filename (folders->pdata[i], "menubus", "integration.conf", NULL);
        GKeyFile *file = g_key_file_new ();
        if (g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
            g_ptr_array_add (files, file);
        else
            g_key_file_unref (file);
    }
    return files;
}

/* The per-app list: [Exclude] Apps= in any of them. */
static gboolean
excluded_by_config (const gchar *const *names)
{
    g_autoptr (GPtrArray) files = mb_integration_files ();
    for (guint i = 0; i < files->len; i++)
        for (const gchar *const *name = names; *name; name++)
            if (listed_in (files->pdata[i], *name))
                return TRUE;
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

/* Whether NAME.desktop is in an applications folder of the user's or the
 * system's data folders: looked up by path, not through GDesktopAppInfo,
 * whose index of every installed app costs each process half a MiB. */
static gboolean
has_desktop_file (const gchar *name)
{
    g_autofree gchar *file = g_strconcat (name, ".desktop", NULL);
    g_autofree gchar *user = g_build_filename (g_get_user_data_dir (), "applications", file, NULL);
    if (g_file_test (user, G_FILE_TEST_IS_REGULAR))
        return TRUE;
    for (const gchar *const *dir = g_get_system_data_dirs (); *dir; dir++) {
        g_autofree gchar *path = g_build_filename (*dir, "applications", file, NULL);
        if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            return TRUE;
    }
    return FALSE;
}

/* The GApplication's id, else the program's name when it is a desktop
 * file's id (org.gnome.TextEditor), else its name under `local.` (menubusd
 * takes reverse-DNS ids only). */
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
    if (valid_app_id (name) && has_desktop_file (name))
        return g_strdup (name);
    GString *safe = g_string_new ("local.");
    if (g_ascii_isdigit (*name))
        g_string_append_c (safe, '_');
    for (const gchar *c = name; *c; c++)
        g_string_append_c (safe, g_ascii_isalnum (*c) || *c == '-' ? *c : '_');
    return g_string_free (safe, FALSE);
}

/* ---------- calls ---------- */

/* A domain error of menubusd's, by its full name (MB_ERROR_*). */
gboolean
mb_is_domain_error (const GError *error, const gchar *full_name)
{
    if (!error || !g_dbus_error_is_remote_error (error))
        return FALSE;
    g_autofree gchar *remote = g_dbus_error_get_remote_error (error);
    return g_strcmp0 (remote, full_name) == 0;
}

/* menubusd answered something: it is not stalled. */
void
mb_heard_from_daemon (void)
{
    mb_core.stalled = FALSE;
}

void
mb_call_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply)
        mb_heard_from_daemon ();
    else
        MB_DEBUG ("%s: %s", (const gchar *) data, error->message);
}

/* A call whose answer only matters for the log. */
void
mb_call (const gchar *method, GVariant *args, gboolean auto_start)
{
    if (!mb_core.bus)
        return;
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, method, args, NULL,
                            auto_start ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            MB_CALL_TIMEOUT_MS, NULL, mb_call_done, (gpointer) method);
}

void
mb_ensure_registered (void)
{
    if (mb_core.registered || !mb_core.bus)
        return;
    if (!mb_core.app_id)
        mb_core.app_id = find_app_id ();
    mb_core.registered = TRUE;
    /* Register may start menubusd through D-Bus activation. */
    mb_call ("Register", g_variant_new ("(soa{sv})", mb_core.app_id, MB_SHIM_CLIENT_PATH, NULL), TRUE);
}

/* menubusd does not know us (NotRegistered): Register goes again first. */
void
mb_forget_registration (void)
{
    mb_core.registered = FALSE;
}

/* ---------- the client object menubusd calls ---------- */

static const gchar *
lookup_string (GVariant *dict, const gchar *key)
{
    const gchar *value = NULL;
    if (!g_variant_lookup (dict, key, "&s", &value))
        return NULL;
    return value;
}

/* GDBus has checked the arguments against the Client interface before
 * this runs. */
static void
client_method (GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *iface,
               const gchar *method, GVariant *args, GDBusMethodInvocation *invocation, gpointer data)
{
    if (!mb_core.owner || g_strcmp0 (sender, mb_core.owner) != 0) {
        g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_ACCESS_DENIED,
                                                    "only menubusd calls this object");
        return;
    }
    mb_heard_from_daemon ();
    if (g_strcmp0 (method, "MenuPresented") == 0) {
        const gchar *context_id, *kind, *menu;
        g_variant_get (args, "(&s&s&o)", &context_id, &kind, &menu);
        mb_menu_announced (context_id, kind, menu);
        g_dbus_method_invocation_return_value (invocation, NULL);
        return;
    }
    const gchar *context_id = NULL;
    g_variant_get_child (args, 0, "&s", &context_id);
    MbField *field = mb_field_by_context (context_id);
    if (!field) {
        g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_NO_SUCH_CONTEXT,
                                                    "contextId: no such context");
        return;
    }
    if (g_strcmp0 (method, "PerformCommand") == 0) {
        const gchar *command;
        g_autoptr (GVariant) arguments = NULL;
        g_variant_get (args, "(&s&s@a{sv})", NULL, &command, &arguments);
        const gchar *text = lookup_string (arguments, "text");
        if (text && strlen (text) > MB_MAX_TEXT_BYTES) {
            g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_LIMIT_EXCEEDED,
                                                        "arguments.text: over 65536 bytes");
            return;
        }
        if (g_strcmp0 (command, "replace-selection") == 0 && !text) {
            /* A replacement that is no string would empty the selection. */
            g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.InvalidArgs",
                                                        "arguments.text: replace-selection needs a string");
            return;
        }
        const gchar *replaces = lookup_string (arguments, "replaces");
        if (g_strcmp0 (command, "replace-selection") == 0 && replaces && !mb_field_selects (field, replaces)) {
            /* The user moved on while the provider worked: what is selected
             * now is not what it was given, and is not replaced. */
            g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.Failed",
                                                        "arguments.replaces: another text is selected now");
            return;
        }
        g_dbus_method_invocation_return_value (invocation, NULL);
        if (g_strcmp0 (command, "undo") == 0 && !(field->published_flags & MB_FIELD_OWN_UNDO))
            mb_field_undo (field);
        else if (g_strcmp0 (command, "redo") == 0 && !(field->published_flags & MB_FIELD_OWN_UNDO))
            mb_field_redo (field);
        else
            field->ops->perform (field->widget, command, text, lookup_string (arguments, "undo-name"));
    } else if (g_strcmp0 (method, "GetSelectedText") == 0) {
        MbSelection selection = { 0 };
        field->ops->selection (field->widget, &selection);
        if (selection.text && strlen (selection.text) > MB_MAX_TEXT_BYTES)
            g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_LIMIT_EXCEEDED,
                                                        "text: the selection is over 65536 bytes");
        else
            g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", selection.text ? selection.text : ""));
        mb_selection_clear (&selection);
    } else if (g_strcmp0 (method, "ShowEditMenu") == 0) {
        g_autoptr (GVariant) platform = g_variant_get_child_value (args, 1);
        guint32 timestamp = 0;
        g_variant_lookup (platform, "timestamp", "u", &timestamp);
        if (!field->ops->show_menu)
            g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.NotSupported",
                                                        "this toolkit's shim cannot show a menu when asked");
        else if (!field->has_focus || !field->ops->show_menu (field->widget, timestamp))
            g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_NO_SUCH_CONTEXT,
                                                        "contextId: the field does not have the keyboard focus now");
        else
            g_dbus_method_invocation_return_value (invocation, NULL);
    } else {
        /* ActionInvoked, ProvideElements: a shim publishes no items of its own. */
        g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_NO_SUCH_ITEM,
                                                    "itemId: this app publishes no items of its own");
    }
}

static const GDBusInterfaceVTable client_vtable = { client_method, NULL, NULL, { 0 } };

/* ---------- menubusd coming and going ---------- */

static void
daemon_appeared (GDBusConnection *bus, const gchar *name, const gchar *owner, gpointer data)
{
    if (g_strcmp0 (owner, mb_core.owner) == 0)
        return;
    g_free (mb_core.owner);
    mb_core.owner = g_strdup (owner);
    mb_core.registered = FALSE;
    mb_core.stalled = FALSE;
    GHashTableIter iter;
    gpointer field;
    g_hash_table_iter_init (&iter, mb_core.fields);
    while (g_hash_table_iter_next (&iter, NULL, &field))
        ((MbField *) field)->published = FALSE;
    /* A restart: the focused field is published again. */
    if (mb_core.focused)
        mb_field_focused (mb_core.focused);
    if (mb_core.daemon_watch)
        mb_core.daemon_watch (TRUE, mb_core.daemon_watch_data);
}

static void
daemon_vanished (GDBusConnection *bus, const gchar *name, gpointer data)
{
    g_clear_pointer (&mb_core.owner, g_free);
    mb_core.registered = FALSE;
    mb_core.stalled = FALSE;
    g_hash_table_remove_all (mb_core.timed_out);
    mb_fields_daemon_gone ();
    mb_menus_daemon_gone ();
    if (mb_core.daemon_watch)
        mb_core.daemon_watch (FALSE, mb_core.daemon_watch_data);
}

static void
bus_ready (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    mb_core.bus = g_bus_get_finish (result, &error);
    if (!mb_core.bus) {
        MB_DEBUG ("no session bus: %s", error->message);
        return;
    }
    mb_core.client_info = g_dbus_node_info_new_for_xml (MB_CLIENT_XML, &error);
    if (mb_core.client_info)
        mb_core.client_object = g_dbus_connection_register_object (
            mb_core.bus, MB_SHIM_CLIENT_PATH, g_dbus_node_info_lookup_interface (mb_core.client_info, MB_CLIENT_IFACE),
            &client_vtable, NULL, NULL, &error);
    if (!mb_core.client_object) {
        MB_DEBUG ("cannot serve %s: %s", MB_SHIM_CLIENT_PATH, error ? error->message : "no interface");
        g_clear_object (&mb_core.bus);
        return;
    }
    mb_core.watch = g_bus_watch_name_on_connection (mb_core.bus, MB_BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                    daemon_appeared, daemon_vanished, NULL, NULL);
    if (mb_core.focused)
        mb_field_focused (mb_core.focused);
}

gboolean
mb_shim_enabled (const gchar *toolkit)
{
    if (mb_core.initialized)
        return mb_core.enabled;
    mb_core.initialized = TRUE;
    const gchar *off = g_getenv ("MENUBUS_DISABLE");
    if (off && *off && g_strcmp0 (off, "0") != 0)
        return FALSE;
    const gchar *names[] = { g_get_prgname (), NULL };
    if (names[0] && excluded_by_config (names))
        return FALSE;
    mb_core.enabled = TRUE;
    mb_core.toolkit = g_strdup (toolkit);
    mb_core.fields = g_hash_table_new (NULL, NULL);
    mb_core.timed_out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    mb_core.token = g_random_int ();
    g_bus_get (G_BUS_TYPE_SESSION, NULL, bus_ready, NULL);
    return TRUE;
}

void
mb_shim_watch_daemon (MbDaemonWatch watch, gpointer data)
{
    mb_core.daemon_watch = watch;
    mb_core.daemon_watch_data = data;
}

GDBusConnection *
mb_shim_connection (void)
{
    return mb_core.bus;
}

const gchar *
mb_shim_daemon (void)
{
    return mb_core.owner;
}

void
mb_shim_set_clipboard_types (const gchar *const *types)
{
    if (mb_core.clipboard && types && g_strv_equal ((const gchar *const *) mb_core.clipboard, types))
        return;
    g_strfreev (mb_core.clipboard);
    mb_core.clipboard = g_strdupv ((gchar **) types);
    if (mb_core.focused)
        mb_field_changed (mb_core.focused);
}

void
mb_shim_set_app_id (const gchar *app_id)
{
    if (!valid_app_id (app_id) || g_strcmp0 (app_id, mb_core.app_id) == 0)
        return;
    g_free (mb_core.app_id);
    mb_core.app_id = g_strdup (app_id);
}

void
mb_shim_omit_commands (const gchar *const *commands)
{
    g_strfreev (mb_core.omit);
    mb_core.omit = commands && *commands ? g_strdupv ((gchar **) commands) : NULL;
}
