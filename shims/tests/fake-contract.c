/* What the fake menubusd answers when a test chose nothing else: the
 * contract, over a small state (contexts, menus, undo). */
#include "fake-daemon-private.h"

static void
unref_maybe (gpointer variant)
{
    if (variant)
        g_variant_unref (variant);
}

static void
menu_free (gpointer data)
{
    Menu *menu = data;
    g_free (menu->path);
    g_free (menu->context);
    g_free (menu->presenter);
    g_free (menu);
}

static void
step_free (gpointer data)
{
    Step *step = data;
    g_free (step->name);
    g_free (step->merge_key);
    g_ptr_array_unref (step->undo);
    g_ptr_array_unref (step->redo);
    g_free (step);
}

static void
document_free (gpointer data)
{
    Document *document = data;
    g_ptr_array_unref (document->steps);
    g_free (document);
}

void
fake_contract_init (FakeDaemon *fake)
{
    fake->contexts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unref_maybe);
    fake->menus = g_ptr_array_new_with_free_func (menu_free);
    fake->documents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, document_free);
    fake->announce = TRUE;
}

void
fake_contract_clear (FakeDaemon *fake)
{
    for (guint i = 0; i < fake->menus->len; i++)
        g_dbus_connection_unregister_object (fake->bus, ((Menu *) fake->menus->pdata[i])->registration);
    g_hash_table_unref (fake->contexts);
    g_ptr_array_unref (fake->menus);
    g_hash_table_unref (fake->documents);
    g_clear_pointer (&fake->items, g_variant_unref);
    g_free (fake->client);
    g_free (fake->client_path);
}

GVariant *
fake_default_items (const gchar *context_id)
{
    GVariantBuilder items, copy, own;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    g_variant_builder_init (&copy, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&copy, "{sv}", "title", g_variant_new_string ("Copy"));
    g_variant_builder_add (&copy, "{sv}", "command", g_variant_new_string ("copy"));
    g_variant_builder_add (&items, "(ss@a{sv})", "menubus:copy", "", g_variant_builder_end (&copy));
    g_variant_builder_init (&own, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&own, "{sv}", "title", g_variant_new_string (context_id));
    g_autofree gchar *id = g_strconcat ("ctx:", context_id, NULL);
    g_variant_builder_add (&items, "(ss@a{sv})", id, "", g_variant_builder_end (&own));
    return g_variant_ref_sink (g_variant_builder_end (&items));
}

static GVariant *
items_for (FakeDaemon *fake, const gchar *context_id)
{
    return fake->items ? g_variant_ref (fake->items) : fake_default_items (context_id);
}

static Menu *
menu_at (FakeDaemon *fake, const gchar *path)
{
    for (guint i = 0; i < fake->menus->len; i++) {
        Menu *menu = fake->menus->pdata[i];
        if (g_strcmp0 (menu->path, path) == 0)
            return menu;
    }
    return NULL;
}

static void
emit_to (FakeDaemon *fake, const gchar *destination, const gchar *path, const gchar *signal, GVariant *body)
{
    g_autoptr (GError) error = NULL;
    if (!g_dbus_connection_emit_signal (fake->bus, destination, path, MB_MENU_IFACE, signal, body, &error))
        g_test_message ("fake menubusd: %s: %s", signal, error->message);
}

static void
close_menu (FakeDaemon *fake, Menu *menu)
{
    if (menu->closed)
        return;
    menu->closed = TRUE;
    emit_to (fake, menu->presenter, menu->path, "Closed", NULL);
}

/* ---------- the contract's answers ---------- */

static void
announced (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (!reply)
        g_test_message ("fake menubusd: MenuPresented: %s", error->message);
}

static void
present (FakeDaemon *fake, GDBusMethodInvocation *invocation, const gchar *context, const gchar *kind)
{
    Menu *menu = g_new0 (Menu, 1);
    menu->path = g_strdup_printf ("%s/menu/%u", MB_MANAGER_PATH, fake->menus->len + 1);
    menu->context = g_strdup (context);
    menu->presenter = g_strdup (g_dbus_method_invocation_get_sender (invocation));
    g_autoptr (GError) error = NULL;
    menu->registration = g_dbus_connection_register_object (fake->bus, menu->path, fake->menu_info->interfaces[0],
                                                            &fake_vtable, fake, NULL, &error);
    g_assert_no_error (error);
    g_ptr_array_add (fake->menus, menu);
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(o)", menu->path));
    if (fake->announce && fake->client)
        g_dbus_connection_call (fake->bus, fake->client, fake->client_path, MB_CLIENT_IFACE, "MenuPresented",
                                g_variant_new ("(sso)", context, kind, menu->path), NULL, G_DBUS_CALL_FLAGS_NONE, 5000,
                                NULL, announced, NULL);
}

static void
register_undo (FakeDaemon *fake, GVariant *args)
{
    const gchar *document_id, *name;
    g_autoptr (GVariant) undo = NULL, redo = NULL, options = NULL;
    g_variant_get (args, "(&s&s@ay@ay@a{sv})", &document_id, &name, &undo, &redo, &options);
    const gchar *key = NULL;
    g_variant_lookup (options, "merge-key", "&s", &key);
    Document *document = g_hash_table_lookup (fake->documents, document_id);
    if (!document) {
        document = g_new0 (Document, 1);
        document->steps = g_ptr_array_new_with_free_func (step_free);
        g_hash_table_insert (fake->documents, g_strdup (document_id), document);
    }
    g_ptr_array_set_size (document->steps, document->done); /* the redo steps go */
    Step *last = document->done > 0 ? document->steps->pdata[document->done - 1] : NULL;
    if (!key || !last || g_strcmp0 (last->merge_key, key) != 0) {
        last = g_new0 (Step, 1);
        last->name = g_strdup (name);
        last->merge_key = g_strdup (key);
        last->undo = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
        last->redo = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
        g_ptr_array_add (document->steps, last);
        document->done++;
    }
    g_ptr_array_add (last->undo, g_variant_ref (undo));
    g_ptr_array_add (last->redo, g_variant_ref (redo));
}

/* Undo: the step's undo payloads newest first; Redo: its redo payloads
 * oldest first. NULL and `error` set when there is nothing to move. */
static GVariant *
move (FakeDaemon *fake, const gchar *document_id, gboolean undo, const gchar **error)
{
    Document *document = g_hash_table_lookup (fake->documents, document_id);
    if (!document) {
        *error = MB_ERROR_PREFIX "NoSuchDocument";
        return NULL;
    }
    if (undo ? document->done == 0 : document->done == document->steps->len) {
        *error = undo ? MB_ERROR_PREFIX "NothingToUndo" : MB_ERROR_PREFIX "NothingToRedo";
        return NULL;
    }
    Step *step = document->steps->pdata[undo ? --document->done : document->done++];
    GVariantBuilder payloads;
    g_variant_builder_init (&payloads, G_VARIANT_TYPE ("aay"));
    for (guint i = 0; i < step->undo->len; i++)
        g_variant_builder_add_value (&payloads, undo ? step->undo->pdata[step->undo->len - 1 - i] : step->redo->pdata[i]);
    return g_variant_new ("(s@aay)", step->name, g_variant_builder_end (&payloads));
}

static gboolean
needs_context (FakeDaemon *fake, GDBusMethodInvocation *invocation, const gchar *context)
{
    if (g_hash_table_contains (fake->contexts, context))
        return TRUE;
    g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_NO_SUCH_CONTEXT, "contextId: no such context");
    return FALSE;
}

void
fake_contract_answer (FakeDaemon *fake, GDBusMethodInvocation *invocation)
{
    const gchar *method = g_dbus_method_invocation_get_method_name (invocation);
    GVariant *args = g_dbus_method_invocation_get_parameters (invocation);
    const gchar *sender = g_dbus_method_invocation_get_sender (invocation);
    const gchar *text = NULL, *context = NULL;
    if (g_strcmp0 (g_dbus_method_invocation_get_interface_name (invocation), MB_MENU_IFACE) == 0) {
        Menu *menu = menu_at (fake, g_dbus_method_invocation_get_object_path (invocation));
        if (!menu || menu->closed) {
            g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.UnknownObject",
                                                        "the menu is closed");
        } else if (g_strcmp0 (method, "GetLayout") == 0) {
            g_autoptr (GVariant) items = items_for (fake, menu->context);
            g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u@a(ssa{sv}))", ++fake->revision, items));
        } else {
            /* Activate, Dismiss: the menu closes. */
            g_dbus_method_invocation_return_value (invocation, NULL);
            close_menu (fake, menu);
        }
        return;
    }
    if (g_strcmp0 (method, "Register") == 0) {
        g_free (fake->client);
        g_free (fake->client_path);
        const gchar *client_path;
        g_variant_get (args, "(&s&o@a{sv})", &text, &client_path, NULL);
        fake->client = g_strdup (sender);
        fake->client_path = g_strdup (client_path);
        g_dbus_method_invocation_return_value (invocation, NULL);
        return;
    }
    if (g_strcmp0 (fake->client, sender) != 0) {
        g_dbus_method_invocation_return_dbus_error (invocation, MB_ERROR_NOT_REGISTERED, "not registered");
        return;
    }
    g_variant_get_child (args, 0, "&s", &context);
    if (g_strcmp0 (method, "PublishContext") == 0) {
        if (!g_hash_table_contains (fake->contexts, context))
            g_hash_table_insert (fake->contexts, g_strdup (context), NULL);
        fake->max_contexts = MAX (fake->max_contexts, g_hash_table_size (fake->contexts));
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", ++fake->revision));
    } else if (g_strcmp0 (method, "UpdateSelection") == 0) {
        if (needs_context (fake, invocation, context)) {
            g_hash_table_insert (fake->contexts, g_strdup (context), g_variant_get_child_value (args, 1));
            g_dbus_method_invocation_return_value (invocation, NULL);
        }
    } else if (g_strcmp0 (method, "RemoveContext") == 0) {
        if (needs_context (fake, invocation, context)) {
            g_hash_table_remove (fake->contexts, context);
            for (guint i = 0; i < fake->menus->len; i++)
                if (g_strcmp0 (((Menu *) fake->menus->pdata[i])->context, context) == 0)
                    close_menu (fake, fake->menus->pdata[i]);
            g_dbus_method_invocation_return_value (invocation, NULL);
        }
    } else if (g_strcmp0 (method, "GetEditMenu") == 0 || g_strcmp0 (method, "GetContextMenu") == 0) {
        g_variant_get_child (args, 1, "&s", &context);
        if (needs_context (fake, invocation, context)) {
            g_autoptr (GVariant) items = items_for (fake, context);
            g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u@a(ssa{sv}))", fake->revision, items));
        }
    } else if (g_strcmp0 (method, "PresentMenu") == 0) {
        const gchar *kind;
        g_variant_get (args, "(&s&s&s@a{sv})", NULL, &context, &kind, NULL);
        if (needs_context (fake, invocation, context))
            present (fake, invocation, context, kind);
    } else if (g_strcmp0 (method, "RegisterUndo") == 0) {
        register_undo (fake, args);
        Document *document = g_hash_table_lookup (fake->documents, context);
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", document->done));
    } else if (g_strcmp0 (method, "Undo") == 0 || g_strcmp0 (method, "Redo") == 0) {
        const gchar *error = NULL;
        GVariant *reply = move (fake, context, g_strcmp0 (method, "Undo") == 0, &error);
        if (reply)
            g_dbus_method_invocation_return_value (invocation, reply);
        else
            g_dbus_method_invocation_return_dbus_error (invocation, error, "nothing to move");
    } else if (g_strcmp0 (method, "ClearUndo") == 0) {
        g_hash_table_remove (fake->documents, context);
        g_dbus_method_invocation_return_value (invocation, NULL);
    } else {
        g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.NotSupported",
                                                    "the fake menubusd does not serve this");
    }
}

guint
fake_live_contexts (FakeDaemon *fake)
{
    return g_hash_table_size (fake->contexts);
}

guint
fake_max_live_contexts (FakeDaemon *fake)
{
    return fake->max_contexts;
}

gboolean
fake_has_context (FakeDaemon *fake, const gchar *context_id)
{
    return g_hash_table_contains (fake->contexts, context_id);
}

GVariant *
fake_selection (FakeDaemon *fake, const gchar *context_id)
{
    return g_hash_table_lookup (fake->contexts, context_id);
}

guint
fake_menus (FakeDaemon *fake)
{
    return fake->menus->len;
}

static Menu *
menu_index (FakeDaemon *fake, guint index)
{
    g_assert_cmpuint (index, <, fake->menus->len);
    return fake->menus->pdata[index];
}

const gchar *
fake_menu_path (FakeDaemon *fake, guint index)
{
    return menu_index (fake, index)->path;
}

const gchar *
fake_menu_context (FakeDaemon *fake, guint index)
{
    return menu_index (fake, index)->context;
}

gboolean
fake_menu_closed (FakeDaemon *fake, guint index)
{
    return menu_index (fake, index)->closed;
}

void
fake_emit (FakeDaemon *fake, guint index, const gchar *signal, GVariant *body)
{
    Menu *menu = menu_index (fake, index);
    emit_to (fake, menu->presenter, menu->path, signal, body);
}

