/* Presented menus: the toolkit's menu opens at once with what is known
 * (the edit menu read ahead), MenuBus's items join it when they come, the
 * presentation follows it live until either side closes it, and a choice
 * reaches menubusd even when made before the presentation came. Each
 * menu is counted: the toolkit holds one reference until mb_menu_close,
 * the list one until the menu ends, every call in flight one. */
#include "menubus-core.h"

static void menu_adopt (MbMenu *menu, const gchar *path);
static void menu_live_ended (MbMenu *menu, MbMenuEvent event);
static void menu_give_up (MbMenu *menu);

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
    g_clear_object (&menu->cancellable);
    g_free (menu);
}

static void
menu_end (MbMenu *menu)
{
    if (menu->state == MENU_ENDED)
        return;
    menu->state = MENU_ENDED;
    if (menu->layout_sub)
        g_dbus_connection_signal_unsubscribe (mb_core.bus, menu->layout_sub);
    if (menu->closed_sub)
        g_dbus_connection_signal_unsubscribe (mb_core.bus, menu->closed_sub);
    menu->layout_sub = menu->closed_sub = 0;
    g_cancellable_cancel (menu->cancellable);
    mb_core.menus = g_list_remove (mb_core.menus, menu);
    menu_unref (menu);
}

static void
menu_signal (GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *iface,
             const gchar *signal, GVariant *args, gpointer data)
{
    MbMenu *menu = data;
    if (menu->state != MENU_SHOWN || g_strcmp0 (sender, mb_core.owner) != 0)
        return;
    mb_heard_from_daemon ();
    if (menu->live && g_strcmp0 (signal, "Closed") == 0) {
        menu_live_ended (menu, MB_MENU_CLOSED);
        return;
    }
    if (g_strcmp0 (signal, "LayoutChanged") == 0) {
        /* Signals are not checked against the interface by GDBus: this is. */
        g_autoptr (GVariant) items = mb_layout_items (args, "LayoutChanged");
        if (items && menu->changed)
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
    if (!menu->live || menu->changed)
        menu->layout_sub = g_dbus_connection_signal_subscribe (mb_core.bus, mb_core.owner, MB_MENU_IFACE, "LayoutChanged",
                                                           menu->path, NULL, G_DBUS_SIGNAL_FLAGS_NONE, menu_signal,
                                                           menu, NULL);
    menu->closed_sub = g_dbus_connection_signal_subscribe (mb_core.bus, mb_core.owner, MB_MENU_IFACE, "Closed", menu->path,
                                                           NULL, G_DBUS_SIGNAL_FLAGS_NONE, menu_signal, menu, NULL);
}

static void
layout_done (GObject *source, GAsyncResult *result, gpointer data)
{
    MbMenu *menu = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply) {
        mb_heard_from_daemon ();
        g_autoptr (GVariant) items = mb_layout_items (reply, "GetLayout");
        if (!items) {
            menu_unref (menu);
            return;
        }
        gboolean same = menu->shown_items && g_variant_equal (items, menu->shown_items);
        g_clear_pointer (&menu->shown_items, g_variant_unref);
        if (menu->state == MENU_SHOWN && menu->changed && !same)
            menu->changed (menu, items, menu->data);
    } else {
        MB_DEBUG ("GetLayout: %s", error->message);
    }
    menu_unref (menu);
}

static void
dismiss (const gchar *path)
{
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, path, MB_MENU_IFACE, "Dismiss", NULL, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, NULL, mb_call_done, "Dismiss");
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
        mb_heard_from_daemon ();
    } else if (mb_core.owner) {
        /* Not chosen after all: the presentation ends, as a dismissal. */
        MB_DEBUG ("Activate: %s", error->message);
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
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, path, MB_MENU_IFACE, "Activate",
                            g_variant_new ("(sa{sv})", item_id, &platform), NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            MB_CALL_TIMEOUT_MS, NULL, activate_done, g_strdup (path));
}

/* A presentation asked for too late: the one menubusd announces later
 * (MenuPresented) is adopted or dismissed. */
static void
count_timed_out (const gchar *context_id)
{
    guint pending = GPOINTER_TO_UINT (g_hash_table_lookup (mb_core.timed_out, context_id));
    g_hash_table_insert (mb_core.timed_out, g_strdup (context_id), GUINT_TO_POINTER (pending + 1));
}

/* A menu waiting for its presentation gets it: its items follow. */
static void
menu_adopt (MbMenu *menu, const gchar *path)
{
    menu->path = g_strdup (path);
    menu->state = MENU_SHOWN;
    menu_subscribe (menu);
    if (!menu->live || menu->changed)
        g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, path, MB_MENU_IFACE, "GetLayout", NULL,
                                G_VARIANT_TYPE ("(ua(ssa{sv}))"), G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS,
                                menu->cancellable, layout_done, menu_ref (menu));
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
        mb_heard_from_daemon ();
        const gchar *path;
        g_variant_get (reply, "(&o)", &path);
        if (menu->state != MENU_WAITING || menu->toolkit_closed) {
            dismiss (path);
            menu_end (menu);
            return;
        }
        menu_adopt (menu, path);
        if (menu->live)
            menu->live (menu, MB_MENU_LIVE, path, menu->data);
        return;
    }
    MB_DEBUG ("PresentMenu: %s", error->message);
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        count_timed_out (menu->context_id);
    MbField *field = mb_field_lookup (menu->field);
    if ((mb_is_domain_error (error, MB_ERROR_NO_SUCH_CONTEXT) || mb_is_domain_error (error, MB_ERROR_NOT_REGISTERED)) &&
        field) {
        mb_field_lost (field);
        mb_field_send (field, TRUE);
    }
    MbMenuLive live = menu->live;
    menu->live = NULL;
    menu->remote_closed = TRUE;
    if (menu->state == MENU_WAITING)
        menu_end (menu);
    if (live && !menu->toolkit_closed)
        live (menu, mb_is_domain_error (error, MB_ERROR_NOTHING_TO_SHOW) ? MB_MENU_EMPTY : MB_MENU_FAILED, NULL, menu->data);
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
        mb_heard_from_daemon ();
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
        MB_DEBUG ("PresentMenu: %s", error->message);
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

/* A menu of `field`, waiting for its presentation: one reference is the
 * toolkit's (until mb_menu_close), one the list's (until menu_end). */
static MbMenu *
menu_new (MbField *field, gpointer data)
{
    MbMenu *menu = g_new0 (MbMenu, 1);
    menu->refs = 1;
    menu->field = field->serial;
    menu->cancellable = g_cancellable_new ();
    menu->context_id = g_strdup (field->context_id);
    menu->data = data;
    menu->state = MENU_WAITING;
    mb_core.menus = g_list_prepend (mb_core.menus, menu_ref (menu));
    return menu;
}

static gboolean
present_now (gpointer data)
{
    MbMenu *menu = data;
    menu->present_idle = 0;
    MbField *field = mb_field_lookup (menu->field);
    if (!field || !mb_core.owner || (menu->toolkit_closed && !menu->pending_item)) {
        /* Closed before it was asked for, or nobody to ask: nothing to present. */
        menu->asking = FALSE;
        if (menu->state == MENU_WAITING) {
            menu_give_up (menu);
            menu_end (menu);
        }
        menu_unref (menu);
        return G_SOURCE_REMOVE;
    }
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "PresentMenu",
                            present_args (field, mb_core.omit), G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            MB_CALL_TIMEOUT_MS, NULL, present_done, menu);
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

static void
edit_menu_done (GObject *source, GAsyncResult *result, gpointer data)
{
    MbMenu *menu = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply) {
        mb_heard_from_daemon ();
        g_autoptr (GVariant) items = mb_layout_items (reply, "GetEditMenu");
        /* Unless the presentation's own layout came first, or the menu
         * closed or was chosen from. */
        if (items && menu->state == MENU_WAITING && !menu->toolkit_closed && !menu->chosen && menu->changed &&
            !menu->shown_items) {
            menu->shown_items = g_variant_ref (items);
            menu->changed (menu, items, menu->data);
        }
    } else {
        MB_DEBUG ("GetEditMenu: %s", error->message);
        MbField *field = mb_field_lookup (menu->field);
        if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) {
            mb_core.stalled = TRUE;
        } else if (field && (mb_is_domain_error (error, MB_ERROR_NO_SUCH_CONTEXT) ||
                             mb_is_domain_error (error, MB_ERROR_NOT_REGISTERED))) {
            mb_field_lost (field);
            mb_field_send (field, TRUE);
        }
    }
    menu_unref (menu);
}

MbMenu *
mb_menu_present (MbField *field, MbMenuChanged changed, gpointer data, GVariant **items)
{
    *items = NULL;
    if (!mb_core.bus || !mb_core.owner)
        return NULL;
    mb_core.reads_ahead = TRUE;
    mb_field_catch_up (field);
    MbMenu *menu = menu_new (field, data);
    menu->changed = changed;
    GVariant *ahead = mb_field_menu_ahead (field);
    if (ahead) {
        /* Read ahead for this very selection: the menu opens with them. */
        *items = g_variant_ref (ahead);
        menu->shown_items = g_variant_ref (ahead);
    } else if (!mb_core.stalled) {
        /* The menu opens as it is, now; the composed items join it when
         * they come (GetEditMenu answers the elements the presentation
         * will have, a round trip sooner). A stalled menubusd is not asked
         * twice. */
        g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "GetEditMenu",
                                mb_edit_menu_args (field), G_VARIANT_TYPE ("(ua(ssa{sv}))"),
                                G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, menu->cancellable, edit_menu_done,
                                menu_ref (menu));
    }
    /* The presentation follows without waiting; its layout replaces the
     * items shown only where it differs (a deferred element), and an item
     * chosen before it came is activated when it does. */
    present_soon (menu);
    return menu;
}

MbMenu *
mb_menu_present_live (MbField *field, const gchar *const *omit_commands, MbMenuLive live, gpointer data)
{
    if (!mb_core.bus || !mb_core.owner)
        return NULL;
    mb_field_catch_up (field);
    MbMenu *menu = menu_new (field, data);
    menu->live = live;
    menu->omit = g_strdupv ((gchar **) omit_commands);
    menu->asking = TRUE;
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "PresentMenu",
                            present_args (field, menu->omit), G_VARIANT_TYPE ("(o)"),
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, NULL, present_done, menu_ref (menu));
    return menu;
}

void
mb_menu_follow (MbMenu *menu, MbMenuChanged changed)
{
    menu->changed = changed;
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
        if (!menu->chosen && !menu->remote_closed && mb_core.owner)
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
void
mb_menu_announced (const gchar *context_id, const gchar *kind, const gchar *path)
{
    for (GList *l = mb_core.menus; l; l = l->next) {
        MbMenu *menu = l->data;
        if (g_strcmp0 (menu->path, path) == 0)
            return; /* ours, and known already */
    }
    guint pending = GPOINTER_TO_UINT (g_hash_table_lookup (mb_core.timed_out, context_id));
    if (pending == 0 || g_strcmp0 (kind, "edit") != 0)
        return; /* someone else presented it */
    if (pending == 1)
        g_hash_table_remove (mb_core.timed_out, context_id);
    else
        g_hash_table_insert (mb_core.timed_out, g_strdup (context_id), GUINT_TO_POINTER (pending - 1));
    /* A presentation that timed out came after all: the menu still waiting
     * for it takes it; else it is dismissed. */
    for (GList *l = mb_core.menus; l; l = l->next) {
        MbMenu *menu = l->data;
        /* Only a menu whose own request has ended: one still asking takes
         * its own answer. */
        if (menu->state == MENU_WAITING && !menu->toolkit_closed && !menu->asking && !menu->live &&
            g_strcmp0 (menu->context_id, context_id) == 0) {
            menu_adopt (menu, path);
            return;
        }
    }
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, path, MB_MENU_IFACE, "Dismiss", NULL, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, NULL, mb_call_done, "Dismiss");
}


/* menubusd went: every menu hears it (a callback may close its menu). */
void
mb_menus_daemon_gone (void)
{
    GList *menus = g_list_copy (mb_core.menus);
    for (GList *l = menus; l; l = l->next)
        menu_ref (l->data);
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
}
