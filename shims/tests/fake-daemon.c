/* The fake menubusd: see fake-daemon.h. */
#include "fake-daemon-private.h"

#include "contract.h" /* MB_TEST_MANAGER_XML, MB_TEST_MENU_XML: dbus/, made by the build */

/* ---------- the parts ---------- */

static void
behaviour_free (gpointer data)
{
    Behaviour *behaviour = data;
    g_free (behaviour->error);
    g_clear_pointer (&behaviour->body, g_variant_unref);
    g_free (behaviour);
}

static Behaviour *
behaviour_of (FakeDaemon *fake, const gchar *method)
{
    Behaviour *behaviour = g_hash_table_lookup (fake->behaviours, method);
    if (!behaviour) {
        behaviour = g_new0 (Behaviour, 1);
        g_hash_table_insert (fake->behaviours, g_strdup (method), behaviour);
    }
    return behaviour;
}

/* Answers as `behaviour` says; takes the invocation. */
static void
respond (FakeDaemon *fake, GDBusMethodInvocation *invocation, Behaviour *behaviour)
{
    if (behaviour && behaviour->mode == MODE_ERROR) {
        g_dbus_method_invocation_return_dbus_error (invocation, behaviour->error, "the fake menubusd's chosen error");
    } else if (behaviour && behaviour->mode == MODE_BODY) {
        /* Past GDBus's check of the reply against the method's signature. */
        g_autoptr (GDBusMessage) reply = g_dbus_message_new_method_reply (g_dbus_method_invocation_get_message (invocation));
        if (behaviour->body)
            g_dbus_message_set_body (reply, behaviour->body);
        g_autoptr (GError) error = NULL;
        if (!g_dbus_connection_send_message (fake->bus, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, &error))
            g_test_message ("fake menubusd: a reply did not go: %s", error->message);
        g_object_unref (invocation);
    } else {
        fake_contract_answer (fake, invocation);
    }
}

typedef struct {
    FakeDaemon *fake;
    GDBusMethodInvocation *invocation;
    guint id;
} Delayed;

static gboolean
delayed_answer (gpointer data)
{
    Delayed *delayed = data;
    FakeDaemon *fake = delayed->fake;
    g_ptr_array_remove_fast (fake->timers, delayed);
    const gchar *method = g_dbus_method_invocation_get_method_name (delayed->invocation);
    Behaviour *behaviour = g_hash_table_lookup (fake->behaviours, method);
    respond (fake, delayed->invocation, behaviour);
    g_free (delayed);
    return G_SOURCE_REMOVE;
}

static void
method_call (GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *iface,
             const gchar *method, GVariant *args, GDBusMethodInvocation *invocation, gpointer data)
{
    FakeDaemon *fake = data;
    g_ptr_array_add (fake->calls, g_variant_ref_sink (g_variant_new ("(s@v)", method, g_variant_new_variant (args))));
    Behaviour *behaviour = g_hash_table_lookup (fake->behaviours, method);
    if (behaviour && behaviour->mode == MODE_HOLD) {
        g_ptr_array_add (fake->held, invocation);
    } else if (behaviour && behaviour->delay_ms) {
        Delayed *delayed = g_new0 (Delayed, 1);
        delayed->fake = fake;
        delayed->invocation = invocation;
        delayed->id = g_timeout_add (behaviour->delay_ms, delayed_answer, delayed);
        g_ptr_array_add (fake->timers, delayed);
    } else {
        respond (fake, invocation, behaviour);
    }
}

const GDBusInterfaceVTable fake_vtable = { method_call, NULL, NULL, { 0 } };

/* ---------- the fake's life ---------- */

FakeDaemon *
fake_daemon_new (gboolean replace)
{
    FakeDaemon *fake = g_new0 (FakeDaemon, 1);
    g_autoptr (GError) error = NULL;
    fake->bus = g_dbus_connection_new_for_address_sync (
        g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL,
        &error);
    g_assert_no_error (error);
    fake->manager_info = g_dbus_node_info_new_for_xml (MB_TEST_MANAGER_XML, &error);
    g_assert_no_error (error);
    fake->menu_info = g_dbus_node_info_new_for_xml (MB_TEST_MENU_XML, &error);
    g_assert_no_error (error);
    fake->behaviours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, behaviour_free);
    fake->held = g_ptr_array_new ();
    fake->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
    fake->timers = g_ptr_array_new ();
    fake_contract_init (fake);
    fake->manager_registration = g_dbus_connection_register_object (
        fake->bus, MB_MANAGER_PATH, g_dbus_node_info_lookup_interface (fake->manager_info, MB_MANAGER_IFACE),
        &fake_vtable, fake, NULL, &error);
    g_assert_no_error (error);
    /* DBUS_NAME_FLAG_ALLOW_REPLACEMENT (1), DBUS_NAME_FLAG_REPLACE_EXISTING (2),
     * DBUS_NAME_FLAG_DO_NOT_QUEUE (4); the answer 1 is "primary owner". */
    g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
        fake->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
        g_variant_new ("(su)", MB_BUS_NAME, 1u | 4u | (replace ? 2u : 0u)), G_VARIANT_TYPE ("(u)"),
        G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
    g_assert_no_error (error);
    guint32 result = 0;
    g_variant_get (reply, "(u)", &result);
    g_assert_cmpuint (result, ==, 1);
    return fake;
}

void
fake_daemon_free (FakeDaemon *fake)
{
    if (!fake)
        return;
    for (guint i = 0; i < fake->timers->len; i++) {
        Delayed *delayed = fake->timers->pdata[i];
        g_source_remove (delayed->id);
        g_object_unref (delayed->invocation);
        g_free (delayed);
    }
    g_ptr_array_unref (fake->timers);
    for (guint i = 0; i < fake->held->len; i++)
        g_object_unref (fake->held->pdata[i]);
    g_ptr_array_unref (fake->held);
    fake_contract_clear (fake);
    g_dbus_connection_unregister_object (fake->bus, fake->manager_registration);
    g_dbus_connection_close_sync (fake->bus, NULL, NULL);
    g_object_unref (fake->bus);
    g_dbus_node_info_unref (fake->manager_info);
    g_dbus_node_info_unref (fake->menu_info);
    g_hash_table_unref (fake->behaviours);
    g_ptr_array_unref (fake->calls);
    g_free (fake);
}

const gchar *
fake_daemon_name (FakeDaemon *fake)
{
    return g_dbus_connection_get_unique_name (fake->bus);
}

GDBusConnection *
fake_daemon_connection (FakeDaemon *fake)
{
    return fake->bus;
}

gboolean
fake_daemon_owns_name (FakeDaemon *fake)
{
    g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
        fake->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
        g_variant_new ("(s)", MB_BUS_NAME), G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
    const gchar *owner = NULL;
    if (reply)
        g_variant_get (reply, "(&s)", &owner);
    return g_strcmp0 (owner, fake_daemon_name (fake)) == 0;
}

/* ---------- what a test chooses ---------- */

static void
set_mode (FakeDaemon *fake, const gchar *method, Mode mode, const gchar *error, GVariant *body)
{
    Behaviour *behaviour = behaviour_of (fake, method);
    behaviour->mode = mode;
    g_free (behaviour->error);
    behaviour->error = g_strdup (error);
    if (body)
        g_variant_ref_sink (body);
    g_clear_pointer (&behaviour->body, g_variant_unref);
    behaviour->body = body;
    behaviour->delay_ms = 0;
}

void
fake_answer (FakeDaemon *fake, const gchar *method)
{
    set_mode (fake, method, MODE_ANSWER, NULL, NULL);
}

void
fake_error (FakeDaemon *fake, const gchar *method, const gchar *error_name)
{
    set_mode (fake, method, MODE_ERROR, error_name, NULL);
}

void
fake_reply_body (FakeDaemon *fake, const gchar *method, GVariant *body)
{
    set_mode (fake, method, MODE_BODY, NULL, body);
}

void
fake_hold (FakeDaemon *fake, const gchar *method)
{
    set_mode (fake, method, MODE_HOLD, NULL, NULL);
}

void
fake_delay (FakeDaemon *fake, const gchar *method, guint ms)
{
    Behaviour *behaviour = behaviour_of (fake, method);
    if (behaviour->mode == MODE_HOLD)
        behaviour->mode = MODE_ANSWER;
    behaviour->delay_ms = ms;
}

gboolean
fake_release_one (FakeDaemon *fake, const gchar *method)
{
    Behaviour *behaviour = behaviour_of (fake, method);
    g_assert_cmpint (behaviour->mode, !=, MODE_HOLD);
    for (guint i = 0; i < fake->held->len; i++) {
        GDBusMethodInvocation *invocation = fake->held->pdata[i];
        if (g_strcmp0 (g_dbus_method_invocation_get_method_name (invocation), method) == 0) {
            g_ptr_array_remove_index (fake->held, i);
            respond (fake, invocation, behaviour);
            return TRUE;
        }
    }
    return FALSE;
}

guint
fake_release (FakeDaemon *fake, const gchar *method)
{
    guint released = 0;
    while (fake_release_one (fake, method))
        released++;
    return released;
}

guint
fake_held (FakeDaemon *fake, const gchar *method)
{
    guint held = 0;
    for (guint i = 0; i < fake->held->len; i++)
        if (g_strcmp0 (g_dbus_method_invocation_get_method_name (fake->held->pdata[i]), method) == 0)
            held++;
    return held;
}

/* ---------- what a test reads ---------- */

GPtrArray *
fake_args_of (FakeDaemon *fake, const gchar *method)
{
    GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
    for (guint i = 0; i < fake->calls->len; i++) {
        const gchar *name;
        GVariant *args;
        g_variant_get (fake->calls->pdata[i], "(&sv)", &name, &args);
        if (g_strcmp0 (name, method) == 0)
            g_ptr_array_add (found, args);
        else
            g_variant_unref (args);
    }
    return found;
}

guint
fake_calls (FakeDaemon *fake, const gchar *method)
{
    g_autoptr (GPtrArray) found = fake_args_of (fake, method);
    return found->len;
}

guint
fake_all_calls (FakeDaemon *fake)
{
    return fake->calls->len;
}

GVariant *
fake_last_args (FakeDaemon *fake, const gchar *method)
{
    g_autoptr (GPtrArray) found = fake_args_of (fake, method);
    return found->len ? g_variant_ref (found->pdata[found->len - 1]) : NULL;
}

void
fake_set_items (FakeDaemon *fake, GVariant *items)
{
    g_clear_pointer (&fake->items, g_variant_unref);
    fake->items = items ? g_variant_ref_sink (items) : NULL;
}

void
fake_set_announce (FakeDaemon *fake, gboolean announce)
{
    fake->announce = announce;
}

const gchar *
fake_client (FakeDaemon *fake)
{
    return fake->client;
}

typedef struct {
    gboolean done;
    GVariant *reply;
    GError *error;
} CallWait;

static void
client_call_done (GObject *source, GAsyncResult *result, gpointer data)
{
    CallWait *wait = data;
    wait->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &wait->error);
    wait->done = TRUE;
}

GVariant *
fake_call_client (FakeDaemon *fake, const gchar *method, GVariant *args, GError **error)
{
    g_assert_nonnull (fake->client);
    CallWait wait = { 0 };
    g_dbus_connection_call (fake->bus, fake->client, fake->client_path, MB_CLIENT_IFACE, method, args, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, client_call_done, &wait);
    /* The call itself ends within its 5 s timeout. */
    while (!wait.done)
        g_main_context_iteration (NULL, TRUE);
    if (wait.error)
        g_propagate_error (error, wait.error);
    return wait.reply;
}
