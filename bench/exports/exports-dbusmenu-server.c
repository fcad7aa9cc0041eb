/*
 * exports-dbusmenu-server: the benchmark menu (exports-menu.h) served by
 * libdbusmenu-glib's own DbusmenuServer at /menu, owning NAME on the
 * session bus (DBUS_SESSION_BUS_ADDRESS: libdbusmenu finds the bus itself).
 *
 * Build: gcc -O2 -o exports-dbusmenu-server exports-dbusmenu-server.c \
 *            $(pkg-config --cflags --libs dbusmenu-glib-0.4 gio-2.0)
 * Usage: exports-dbusmenu-server NAME
 */
#include <gio/gio.h>
#include <libdbusmenu-glib/client.h>
#include <libdbusmenu-glib/menuitem.h>
#include <libdbusmenu-glib/server.h>

#include "exports-menu.h"

static DbusmenuMenuitem *item(const struct menu_entry *e)
{
    DbusmenuMenuitem *mi = dbusmenu_menuitem_new();
    dbusmenu_menuitem_property_set(mi, DBUSMENU_MENUITEM_PROP_LABEL, e->label);
    if (e->icon) dbusmenu_menuitem_property_set(mi, DBUSMENU_MENUITEM_PROP_ICON_NAME, e->icon);
    if (e->key[0]) {
        dbusmenu_menuitem_property_set_variant(mi, DBUSMENU_MENUITEM_PROP_SHORTCUT,
                                               g_variant_new_parsed("[['Control', %s]]", e->key));
    }
    if (e->checked) {
        dbusmenu_menuitem_property_set(mi, DBUSMENU_MENUITEM_PROP_TOGGLE_TYPE, DBUSMENU_MENUITEM_TOGGLE_CHECK);
        dbusmenu_menuitem_property_set_int(mi, DBUSMENU_MENUITEM_PROP_TOGGLE_STATE, DBUSMENU_MENUITEM_TOGGLE_STATE_CHECKED);
    }
    return mi;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        g_printerr("usage: exports-dbusmenu-server NAME\n");
        return 2;
    }
    DbusmenuMenuitem *root = dbusmenu_menuitem_new();
    for (int index = 0; index < MENU_ENTRIES; index++) {
        if (index > 0 && index % MENU_PER_SECTION == 0) {
            DbusmenuMenuitem *separator = dbusmenu_menuitem_new();
            dbusmenu_menuitem_property_set(separator, DBUSMENU_MENUITEM_PROP_TYPE, DBUSMENU_CLIENT_TYPES_SEPARATOR);
            dbusmenu_menuitem_child_append(root, separator);
        }
        struct menu_entry e = menu_entry(index);
        DbusmenuMenuitem *mi = item(&e);
        if (e.is_submenu) {
            dbusmenu_menuitem_property_set(mi, DBUSMENU_MENUITEM_PROP_CHILD_DISPLAY, DBUSMENU_MENUITEM_CHILD_DISPLAY_SUBMENU);
            for (int sub = 0; sub < MENU_SUBMENU_ITEMS; sub++) {
                struct menu_entry s = menu_submenu_entry(sub);
                dbusmenu_menuitem_child_append(mi, item(&s));
            }
        }
        dbusmenu_menuitem_child_append(root, mi);
    }
    DbusmenuServer *server = dbusmenu_server_new("/menu");
    dbusmenu_server_set_root(server, root);
    g_bus_own_name(G_BUS_TYPE_SESSION, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
    return 0;
}
