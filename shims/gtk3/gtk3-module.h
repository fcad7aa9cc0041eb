/* The GTK 3 module's parts (menubus-module.c: loading and the hooks;
 * gtk3-field.c: which widgets take part and what a field does;
 * gtk3-atk.c: widgets that draw their own text, through ATK;
 * gtk3-items.c: MenuBus's elements as GTK menu items; gtk3-popup.c: a
 * context menu while it is open; gtk3-bar.c: the edit bar over a
 * selection), and what they share. */
#ifndef MENUBUS_GTK3_MODULE_H
#define MENUBUS_GTK3_MODULE_H

#include <gtk/gtk.h>

#include "menubus-policy.h"
#include "menubus-shim.h"

G_BEGIN_DECLS

#define FIELD_KEY "menubus-field"
#define EXCLUDE_KEY "menubus-exclude"
#define POPUP_KEY "menubus-popup"
#define TOPLEVEL_KEY "menubus-keys"

typedef struct {
    GtkMenu *menu;
    GtkWidget *widget;
    MbMenu *presented;
    GPtrArray *ours;     /* the items MenuBus put in, in order */
    GPtrArray *retired;  /* items taken out, kept until the popup goes (GTK may still activate one) */
    GPtrArray *replaced; /* GTK's own standard items, hidden while MenuBus's show */
    GHashTable *shown;   /* standard commands the app's own items do, left out of MenuBus's */
    GHashTable *titles;  /* the app's items' titles, folded: MenuBus's of the same title are left out */
    GHashTable *accels;  /* and their shortcuts: MenuBus's with the same shortcut too */
    GtkWidget *anchor;   /* MenuBus's items go before it; NULL: at the end */
    gboolean closing;
} Popup;

/* One element of MenuBus's menu, borrowed from its a(ssa{sv}). */
typedef struct {
    const gchar *id;
    const gchar *parent;
    GVariant *props;
} Element;

/* gtk3-field.c */
G_GNUC_INTERNAL gboolean gtk3_takes_part (GtkWidget *widget);
G_GNUC_INTERNAL gboolean gtk3_builds_own_items (GtkWidget *widget);
G_GNUC_INTERNAL MbField *gtk3_field_of (GtkWidget *widget);
G_GNUC_INTERNAL MbField *gtk3_adopt (GtkWidget *widget);
G_GNUC_INTERNAL MbField *gtk3_field_attach (GtkWidget *widget, const MbFieldOps *ops);

/* gtk3-atk.c: widgets that draw their own text, through ATK */
G_GNUC_INTERNAL gboolean gtk3_atk_takes_part (GtkWidget *widget);
G_GNUC_INTERNAL MbField *gtk3_atk_adopt (GtkWidget *widget);
G_GNUC_INTERNAL void gtk3_atk_watch (void);

/* gtk3-items.c */
G_GNUC_INTERNAL const gchar *gtk3_item_command (GtkWidget *item, gboolean *gtk_own);
G_GNUC_INTERNAL gchar *gtk3_folded_title (const gchar *title);
G_GNUC_INTERNAL guint gtk3_accel_hash (guint key, GdkModifierType mods);
G_GNUC_INTERNAL GtkAccelLabel *gtk3_find_label (GtkWidget *widget);
G_GNUC_INTERNAL void gtk3_build (Popup *popup, GArray *elements, const gchar *parent, GPtrArray *out,
                                 gboolean *need_separator, gboolean radio);
G_GNUC_INTERNAL void gtk3_tidy_separators (GtkMenu *menu);

/* gtk3-popup.c */
G_GNUC_INTERNAL Popup *gtk3_popup_new (GtkMenu *menu, GtkWidget *widget);
G_GNUC_INTERNAL void gtk3_menu_deactivated (GtkMenuShell *shell, Popup *popup);
G_GNUC_INTERNAL void gtk3_menu_shown (GtkWidget *menu, Popup *popup);

/* gtk3-bar.c: the edit bar (MbFieldOps' show_bar and hide_bar). A field
 * followed shows it for a selection made with the pointer; its "›" opens
 * the whole menu with `show_menu` (the field's MbFieldOps show_menu). */
typedef gboolean (*Gtk3ShowMenu) (gpointer widget, guint32 timestamp);
G_GNUC_INTERNAL void gtk3_bar_follow (GtkWidget *widget, Gtk3ShowMenu show_menu);
G_GNUC_INTERNAL void gtk3_bar_show (gpointer widget, GVariant *items);
G_GNUC_INTERNAL void gtk3_bar_hide (gpointer widget);

/* menubus-module.c */
G_GNUC_INTERNAL void gtk3_follow_clipboard (void);

G_END_DECLS

#endif
