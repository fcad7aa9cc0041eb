/*
 * exports-gmenu-server: the benchmark menu (exports-menu.h) as a GMenu
 * exported by GLib's own g_dbus_connection_export_menu_model at /menu,
 * owning NAME on the session bus. Items carry what menubusd's export
 * carries: label, action, icon (a themed icon name) and accel.
 *
 * Build: gcc -O2 -o exports-gmenu-server exports-gmenu-server.c \
 *            $(pkg-config --cflags --libs gio-2.0)
 * Usage: exports-gmenu-server NAME
 */
#include <gio/gio.h>

#include "exports-menu.h"

static GMenuItem *item(const struct menu_entry *e, int number)
{
    char action[32];
    snprintf(action, sizeof action, "menubus.item-%d", number);
    GMenuItem *mi = g_menu_item_new(e->label, action);
    if (e->icon) g_menu_item_set_attribute(mi, G_MENU_ATTRIBUTE_ICON, "s", e->icon);
    if (e->accel[0]) g_menu_item_set_attribute(mi, "accel", "s", e->accel);
    return mi;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        g_printerr("usage: exports-gmenu-server NAME\n");
        return 2;
    }
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (!bus) {
        g_printerr("exports-gmenu-server: %s\n", error->message);
        return 1;
    }
    GMenu *root = g_menu_new();
    int number = 1;
    for (int s = 0; s < MENU_SECTIONS; s++) {
        GMenu *section = g_menu_new();
        for (int i = 0; i < MENU_PER_SECTION; i++) {
            struct menu_entry e = menu_entry(s * MENU_PER_SECTION + i);
            if (e.is_submenu) {
                GMenu *submenu = g_menu_new();
                for (int sub = 0; sub < MENU_SUBMENU_ITEMS; sub++) {
                    struct menu_entry m = menu_submenu_entry(sub);
                    g_menu_append_item(submenu, item(&m, number++));
                }
                g_menu_append_submenu(section, e.label, G_MENU_MODEL(submenu));
            } else {
                g_menu_append_item(section, item(&e, number++));
            }
        }
        g_menu_append_section(root, NULL, G_MENU_MODEL(section));
    }
    if (!g_dbus_connection_export_menu_model(bus, "/menu", G_MENU_MODEL(root), &error)) {
        g_printerr("exports-gmenu-server: %s\n", error->message);
        return 1;
    }
    g_bus_own_name_on_connection(bus, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
    return 0;
}
