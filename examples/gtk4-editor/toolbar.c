/* The editor's Back button, a MenuBus button with a history menu: a tap
 * goes back one place (its primary action), press and hold, a right click,
 * Shift+F10 or the Menu key show the places visited before, most recent
 * first (a deferred element MenuBus asks for at every presentation).
 *
 * It talks to menubusd over a connection of its own, as an app of the same
 * id: the text widgets' library keeps the shared session connection and
 * its client object there. Every call is asynchronous. */
#include "toolbar.h"

#define DAEMON "org.menubus.MenuBus1"
#define MANAGER_PATH "/org/menubus/MenuBus1"
#define MANAGER "org.menubus.MenuBus1"
#define CLIENT_PATH "/org/menubus/examples/Toolbar"
#define CONTEXT "back"
#define PRIMARY "go-back"
#define PLACE_PREFIX "place-"

/* What menubusd calls: the part of org.menubus.MenuBus1.Client the
 * toolbar answers. */
static const char client_xml[] =
    "<node><interface name='org.menubus.MenuBus1.Client'>"
    "<method name='ActionInvoked'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='a{sv}' direction='in'/></method>"
    "<method name='PerformCommand'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='a{sv}' direction='in'/></method>"
    "<method name='MenuPresented'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='o' direction='in'/></method>"
    "<method name='ProvideElements'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='a(ssa{sv})' direction='out'/></method>"
    "<method name='GetSelectedText'><arg type='s' direction='in'/><arg type='s' direction='out'/></method>"
    "</interface></node>";

struct _Toolbar {
    GtkWindow *window;
    GtkWidget *back;
    char *app_id;
    GDBusConnection *bus;
    char *daemon_owner;        /* menubusd's unique name: the only caller answered */
    GPtrArray *places;         /* visited, oldest first; the last is where the window is */
    GtkWidget *popover;
    char *menu_path;           /* the presented history menu, while shown */
    guint focus_source;        /* moves the keyboard into the menu once it can */
};

static void
show_place (Toolbar *toolbar)
{
    const char *here = g_ptr_array_index (toolbar->places, toolbar->places->len - 1);
    char *title = g_strdup_printf ("MenuBus GTK 4 Editor — %s", here);
    gtk_window_set_title (toolbar->window, title);
    g_free (title);
    gtk_widget_set_sensitive (toolbar->back, toolbar->places->len > 1);
}

static void
logged (GObject *source, GAsyncResult *result, gpointer what)
{
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply != NULL)
        g_variant_unref (reply);
    else {
        g_debug ("toolbar: %s: %s", (const char *) what, error->message);
        g_error_free (error);
    }
}

static void
call (Toolbar *toolbar, const char *path, const char *interface, const char *method, GVariant *arguments)
{
    if (toolbar->bus == NULL)
        return;
    g_dbus_connection_call (toolbar->bus, DAEMON, path, interface, method, arguments, NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, logged, (gpointer) method);
}

/* The Back button's context: a history button whose tap is "go-back"
 * (hidden, so not also in the menu) and whose menu is one deferred element;
 * it offers nothing while there is nowhere to go back to. */
static void
publish (Toolbar *toolbar)
{
    GVariantBuilder context, items, hidden;
    g_variant_builder_init (&context, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&context, "{sv}", "kind", g_variant_new_string ("history"));
    g_variant_builder_add (&context, "{sv}", "title", g_variant_new_string ("Back"));
    g_variant_builder_add (&context, "{sv}", "primary-action", g_variant_new_string (PRIMARY));
    g_variant_builder_add (&context, "{sv}", "enabled", g_variant_new_boolean (toolbar->places->len > 1));
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    g_variant_builder_init (&hidden, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&hidden, "{sv}", "title", g_variant_new_string ("Back"));
    const char *attributes[] = { "hidden", NULL };
    g_variant_builder_add (&hidden, "{sv}", "attributes", g_variant_new_strv (attributes, -1));
    g_variant_builder_add (&items, "(ss@a{sv})", PRIMARY, "", g_variant_builder_end (&hidden));
    g_variant_builder_add (&items, "(ss@a{sv})", "places", "",
                           g_variant_new_parsed ("{'type': <'deferred'>}"));
    call (toolbar, MANAGER_PATH, MANAGER, "PublishContext",
          g_variant_new ("(s@a{sv}@a(ssa{sv}))", CONTEXT, g_variant_builder_end (&context),
                         g_variant_builder_end (&items)));
}

static void
go_to (Toolbar *toolbar, guint index)
{
    if (toolbar->places->len < 2 || index + 1 >= toolbar->places->len)
        return;
    g_ptr_array_set_size (toolbar->places, index + 1);
    show_place (toolbar);
    publish (toolbar);
}

void
toolbar_visit (Toolbar *toolbar, const char *place)
{
    if (place == NULL || *place == '\0')
        return;
    g_ptr_array_add (toolbar->places, g_strdup (place));
    show_place (toolbar);
    publish (toolbar);
}

/* The places before the current one, most recent first, as menu items
 * whose ids are their index in `places`. */
static GVariant *
history_items (Toolbar *toolbar)
{
    GVariantBuilder items;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    for (guint i = toolbar->places->len - 1; i-- > 0;) {
        char *id = g_strdup_printf (PLACE_PREFIX "%u", i);
        GVariantBuilder properties;
        g_variant_builder_init (&properties, G_VARIANT_TYPE_VARDICT);
        g_variant_builder_add (&properties, "{sv}", "title",
                               g_variant_new_string (g_ptr_array_index (toolbar->places, i)));
        g_variant_builder_add (&items, "(ss@a{sv})", id, "", g_variant_builder_end (&properties));
        g_free (id);
    }
    return g_variant_builder_end (&items);
}

static void
client_call (G_GNUC_UNUSED GDBusConnection *bus, const char *sender, G_GNUC_UNUSED const char *path,
             G_GNUC_UNUSED const char *interface, const char *method, GVariant *parameters,
             GDBusMethodInvocation *invocation, gpointer data)
{
    Toolbar *toolbar = data;
    if (toolbar->daemon_owner == NULL || g_strcmp0 (sender, toolbar->daemon_owner) != 0) {
        g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.AccessDenied",
                                                    "only menubusd calls this object");
        return;
    }
    if (g_strcmp0 (method, "ActionInvoked") == 0) {
        const char *item;
        g_variant_get (parameters, "(&s&s@a{sv})", NULL, &item, NULL);
        if (g_strcmp0 (item, PRIMARY) == 0)
            go_to (toolbar, toolbar->places->len - 2);
        else if (g_str_has_prefix (item, PLACE_PREFIX))
            go_to (toolbar, (guint) g_ascii_strtoull (item + strlen (PLACE_PREFIX), NULL, 10));
        g_dbus_method_invocation_return_value (invocation, NULL);
    } else if (g_strcmp0 (method, "ProvideElements") == 0) {
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a(ssa{sv}))", history_items (toolbar)));
    } else if (g_strcmp0 (method, "GetSelectedText") == 0) {
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", ""));
    } else {
        g_dbus_method_invocation_return_value (invocation, NULL);
    }
}

static const GDBusInterfaceVTable client_vtable = { client_call, NULL, NULL, { NULL } };

static void
daemon_appeared (G_GNUC_UNUSED GDBusConnection *bus, G_GNUC_UNUSED const char *name, const char *owner, gpointer data)
{
    Toolbar *toolbar = data;
    g_free (toolbar->daemon_owner);
    toolbar->daemon_owner = g_strdup (owner);
    call (toolbar, MANAGER_PATH, MANAGER, "Register",
          g_variant_new ("(soa{sv})", toolbar->app_id, CLIENT_PATH, NULL));
    publish (toolbar);
}

static void
daemon_vanished (G_GNUC_UNUSED GDBusConnection *bus, G_GNUC_UNUSED const char *name, gpointer data)
{
    Toolbar *toolbar = data;
    g_clear_pointer (&toolbar->daemon_owner, g_free);
}

static void
connected (G_GNUC_UNUSED GObject *source, GAsyncResult *result, gpointer data)
{
    Toolbar *toolbar = data;
    GError *error = NULL;
    toolbar->bus = g_dbus_connection_new_for_address_finish (result, &error);
    if (toolbar->bus == NULL) {
        g_debug ("toolbar: no session bus: %s", error->message);
        g_error_free (error);
        return;
    }
    GDBusNodeInfo *node = g_dbus_node_info_new_for_xml (client_xml, NULL);
    g_dbus_connection_register_object (toolbar->bus, CLIENT_PATH, node->interfaces[0], &client_vtable,
                                       toolbar, NULL, NULL);
    g_dbus_node_info_unref (node);
    g_bus_watch_name_on_connection (toolbar->bus, DAEMON, G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                    daemon_appeared, daemon_vanished, toolbar, NULL);
}

/* A tap: MenuBus runs the primary action, and "go-back" comes back as
 * ActionInvoked. */
static void
tapped (G_GNUC_UNUSED GtkButton *button, Toolbar *toolbar)
{
    if (toolbar->daemon_owner == NULL) {
        /* No MenuBus: the button still goes back. */
        go_to (toolbar, toolbar->places->len - 2);
        return;
    }
    call (toolbar, MANAGER_PATH, MANAGER, "ActivatePrimaryAction",
          g_variant_new ("(ssa{sv})", "", CONTEXT, NULL));
}

static gboolean
dismiss (gpointer data)
{
    Toolbar *toolbar = data;
    if (toolbar->menu_path != NULL)
        call (toolbar, toolbar->menu_path, "org.menubus.MenuBus1.Menu", "Dismiss", NULL);
    g_clear_pointer (&toolbar->menu_path, g_free);
    return G_SOURCE_REMOVE;
}

static void
popover_closed (G_GNUC_UNUSED GtkPopover *popover, Toolbar *toolbar)
{
    /* GTK closes the popover before it activates the chosen item's action:
     * the Dismiss goes once that is sent (after a choice menubusd has
     * closed the menu already and answers UnknownObject). */
    g_idle_add (dismiss, toolbar);
}

/* The keyboard goes to the menu's first item, as in a menu GTK opens
 * itself, once it holds one that can take it: the history arrives a moment
 * after the menu shows "Loading…", which cannot; until then the focus
 * rests on the popover's scrolled window. */
static gboolean
focus_menu (gpointer data)
{
    Toolbar *toolbar = data;
    if (toolbar->popover == NULL || !gtk_widget_get_visible (toolbar->popover)) {
        toolbar->focus_source = 0;
        return G_SOURCE_REMOVE;
    }
    GtkWidget *focused = toolbar->popover, *child;
    while ((child = gtk_widget_get_focus_child (focused)) != NULL)
        focused = child;
    GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (focused));
    if (role == GTK_ACCESSIBLE_ROLE_MENU_ITEM || role == GTK_ACCESSIBLE_ROLE_MENU_ITEM_CHECKBOX
        || role == GTK_ACCESSIBLE_ROLE_MENU_ITEM_RADIO) {
        toolbar->focus_source = 0;
        return G_SOURCE_REMOVE;
    }
    gtk_widget_child_focus (toolbar->popover, GTK_DIR_TAB_FORWARD);
    return G_SOURCE_CONTINUE;
}

static void
presented (GObject *source, GAsyncResult *result, gpointer data)
{
    Toolbar *toolbar = data;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply == NULL) {
        g_debug ("toolbar: PresentMenu: %s", error->message);
        g_error_free (error);
        return;
    }
    g_variant_get (reply, "(o)", &toolbar->menu_path);
    g_variant_unref (reply);
    GMenuModel *model = G_MENU_MODEL (g_dbus_menu_model_get (toolbar->bus, DAEMON, toolbar->menu_path));
    GActionGroup *actions = G_ACTION_GROUP (g_dbus_action_group_get (toolbar->bus, DAEMON, toolbar->menu_path));
    gtk_widget_insert_action_group (toolbar->back, "menubus", actions);
    if (toolbar->popover == NULL) {
        toolbar->popover = gtk_popover_menu_new_from_model (model);
        gtk_widget_set_parent (toolbar->popover, toolbar->back);
        g_signal_connect (toolbar->popover, "closed", G_CALLBACK (popover_closed), toolbar);
    } else {
        gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (toolbar->popover), model);
    }
    g_object_unref (model);
    g_object_unref (actions);
    gtk_popover_popup (GTK_POPOVER (toolbar->popover));
    if (toolbar->focus_source == 0)
        toolbar->focus_source = g_timeout_add (50, focus_menu, toolbar);
}

/* Press and hold (or a right click, Shift+F10, Menu): the history menu,
 * compact (a button's menu has no preview). */
static void
show_history (Toolbar *toolbar)
{
    if (toolbar->bus == NULL || toolbar->menu_path != NULL || toolbar->places->len < 2)
        return;
    g_dbus_connection_call (toolbar->bus, DAEMON, MANAGER_PATH, MANAGER, "PresentMenu",
                            g_variant_new_parsed ("('', %s, 'context', {'appearance': <'compact'>})", CONTEXT),
                            G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, presented, toolbar);
}

static void
held (GtkGestureLongPress *gesture, G_GNUC_UNUSED double x, G_GNUC_UNUSED double y, Toolbar *toolbar)
{
    /* The hold is not also a tap. */
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    show_history (toolbar);
}

static void
right_clicked (GtkGestureClick *gesture, G_GNUC_UNUSED int presses, G_GNUC_UNUSED double x,
               G_GNUC_UNUSED double y, Toolbar *toolbar)
{
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    show_history (toolbar);
}

static gboolean
menu_key (G_GNUC_UNUSED GtkWidget *widget, G_GNUC_UNUSED GVariant *arguments, gpointer toolbar)
{
    show_history (toolbar);
    return TRUE;
}

Toolbar *
toolbar_new (GtkWindow *window, const char *app_id, const char *home, gboolean use_menubus)
{
    Toolbar *toolbar = g_new0 (Toolbar, 1);
    toolbar->window = window;
    toolbar->app_id = g_strdup (app_id);
    toolbar->places = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (toolbar->places, g_strdup (home));
    toolbar->back = gtk_button_new_with_label ("Back");
    gtk_widget_set_tooltip_text (toolbar->back, "Back (hold for the places visited)");
    g_signal_connect (toolbar->back, "clicked", G_CALLBACK (tapped), toolbar);

    GtkGesture *hold = gtk_gesture_long_press_new ();
    gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (hold), GTK_PHASE_CAPTURE);
    g_signal_connect (hold, "pressed", G_CALLBACK (held), toolbar);
    gtk_widget_add_controller (toolbar->back, GTK_EVENT_CONTROLLER (hold));
    GtkGesture *secondary = gtk_gesture_click_new ();
    gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (secondary), GDK_BUTTON_SECONDARY);
    g_signal_connect (secondary, "pressed", G_CALLBACK (right_clicked), toolbar);
    gtk_widget_add_controller (toolbar->back, GTK_EVENT_CONTROLLER (secondary));
    GtkEventController *keys = gtk_shortcut_controller_new ();
    GtkShortcutAction *action = gtk_callback_action_new (menu_key, toolbar, NULL);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
        gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_F10, GDK_SHIFT_MASK),
                                                       gtk_keyval_trigger_new (GDK_KEY_Menu, 0)),
                          action));
    gtk_widget_add_controller (toolbar->back, keys);
    show_place (toolbar);

    char *address = use_menubus ? g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, NULL) : NULL;
    if (address != NULL)
        g_dbus_connection_new_for_address (address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                           | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                           NULL, NULL, connected, toolbar);
    g_free (address);
    return toolbar;
}

GtkWidget *
toolbar_back_button (Toolbar *toolbar)
{
    return toolbar->back;
}
