/* MenuBus's section of a GTK 4 extra menu, built here from a presented
 * menu's items (a(ssa{sv}), as GetLayout and LayoutChanged give them) and
 * kept up to date in place: only the items that differ are removed and
 * inserted, so GtkPopoverMenu keeps the widgets of the others, and a
 * submenu that stays is never taken out (GTK 4.8 adds a submenu's page to
 * the popover again each time its item comes back). Its actions are a
 * GSimpleActionGroup the widget holds under the prefix "menubus". */
#ifndef GTK4_MENU_H
#define GTK4_MENU_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define GTK4_MENU_ACTION_PREFIX "menubus"

typedef struct _Gtk4Menu Gtk4Menu;

/* An item was chosen: its element id. */
typedef void (*Gtk4MenuChosen) (const gchar *item_id, gpointer data);

/* A submenu's item left the section: `label` is its label as GTK names the
 * popover's page of it. */
typedef void (*Gtk4MenuSubmenuGone) (const gchar *label, gpointer data);

G_GNUC_INTERNAL Gtk4Menu *gtk4_menu_new (Gtk4MenuChosen chosen, Gtk4MenuSubmenuGone gone, gpointer data);
/* The section's items (the menu's own model, never replaced). */
G_GNUC_INTERNAL GMenuModel *gtk4_menu_model (Gtk4Menu *menu);
/* The actions its items name, under GTK4_MENU_ACTION_PREFIX. */
G_GNUC_INTERNAL GActionGroup *gtk4_menu_actions (Gtk4Menu *menu);
/* The section now shows `items` (checked by the core), or nothing (NULL). */
G_GNUC_INTERNAL void gtk4_menu_update (Gtk4Menu *menu, GVariant *items);
G_GNUC_INTERNAL gboolean gtk4_menu_is_empty (Gtk4Menu *menu);
G_GNUC_INTERNAL void gtk4_menu_free (Gtk4Menu *menu);

G_END_DECLS

#endif
