/* MenuBus's elements as GTK menu items, and what the app's own items of
 * a menu do, so MenuBus's of the same command, title or shortcut are
 * left out. */
#include <gtk/gtk.h>
#include <string.h>

#include "gtk3-module.h"

/* The standard command an item of the menu does, when it can be told:
 * GTK marks its own clipboard items (and GtkSourceView its undo and redo)
 * with "gtk-signal"; Delete and Select All by GTK's own titles; an app's
 * item by its action name (`win.edit.copy`). `gtk_own` says GTK made it. */
const gchar *
gtk3_item_command (GtkWidget *item, gboolean *gtk_own)
{
    *gtk_own = FALSE;
    const gchar *signal = g_object_get_data (G_OBJECT (item), "gtk-signal");
    if (signal) {
        *gtk_own = TRUE;
        if (strcmp (signal, "cut-clipboard") == 0)
            return "cut";
        if (strcmp (signal, "copy-clipboard") == 0)
            return "copy";
        if (strcmp (signal, "paste-clipboard") == 0)
            return "paste";
        *gtk_own = FALSE; /* GtkSourceView's undo and redo stay */
        if (strcmp (signal, "undo") == 0 || strcmp (signal, "redo") == 0)
            return signal;
        return NULL;
    }
    const gchar *action = GTK_IS_ACTIONABLE (item) ? gtk_actionable_get_action_name (GTK_ACTIONABLE (item)) : NULL;
    const gchar *label = GTK_IS_MENU_ITEM (item) ? gtk_menu_item_get_label (GTK_MENU_ITEM (item)) : NULL;
    if (label && !action) {
        if (strcmp (label, g_dgettext ("gtk30", "_Delete")) == 0) {
            *gtk_own = TRUE;
            return "delete";
        }
        if (strcmp (label, g_dgettext ("gtk30", "Select _All")) == 0) {
            *gtk_own = TRUE;
            return "select-all";
        }
    }
    if (action) {
        const gchar *last = strrchr (action, '.');
        last = last ? last + 1 : action;
        static const gchar *const commands[] = { "undo", "redo", "cut", "copy", "paste", "delete", "select-all", NULL };
        for (const gchar *const *c = commands; *c; c++)
            if (strcmp (last, *c) == 0)
                return *c;
        if (strcmp (last, "delete-selection") == 0)
            return "delete";
    }
    return NULL;
}

static void
item_chosen (GtkMenuItem *item, Popup *popup)
{
    const gchar *id = g_object_get_data (G_OBJECT (item), "menubus-id");
    if (id && popup->presented)
        mb_menu_activate (popup->presented, id, gtk_get_current_event_time ());
}

static gboolean
has_attribute (GVariant *props, const gchar *name)
{
    g_autofree const gchar **attributes = NULL;
    if (!g_variant_lookup (props, "attributes", "^a&s", &attributes))
        return FALSE;
    return g_strv_contains (attributes, name);
}

static gboolean
has_option (GVariant *props, const gchar *name)
{
    g_autofree const gchar **options = NULL;
    if (!g_variant_lookup (props, "options", "^a&s", &options))
        return FALSE;
    return g_strv_contains (options, name);
}

static GtkWidget *
make_item (Popup *popup, const Element *element, gboolean radio, GSList **group)
{
    const gchar *title = "", *icon = NULL, *shortcut = NULL, *state = NULL, *subtitle = NULL;
    g_variant_lookup (element->props, "title", "&s", &title);
    g_variant_lookup (element->props, "icon", "&s", &icon);
    g_variant_lookup (element->props, "shortcut", "&s", &shortcut);
    g_variant_lookup (element->props, "subtitle", "&s", &subtitle);
    const gchar *command = NULL;
    g_variant_lookup (element->props, "command", "&s", &command);
    /* Bold, Italic and Underline keep their check box while off. */
    gboolean checkable = g_variant_lookup (element->props, "state", "&s", &state)
        || g_strcmp0 (command, "bold") == 0 || g_strcmp0 (command, "italic") == 0
        || g_strcmp0 (command, "underline") == 0;
    GtkWidget *item;
    if (radio) {
        item = gtk_radio_menu_item_new (*group);
        *group = gtk_radio_menu_item_get_group (GTK_RADIO_MENU_ITEM (item));
    } else if (checkable) {
        item = gtk_check_menu_item_new ();
    } else {
        item = gtk_menu_item_new ();
    }
    if (radio || checkable) {
        gtk_check_menu_item_set_active (GTK_CHECK_MENU_ITEM (item), g_strcmp0 (state, "on") == 0);
        gtk_check_menu_item_set_inconsistent (GTK_CHECK_MENU_ITEM (item), g_strcmp0 (state, "mixed") == 0);
    }
    /* The title with its accelerator, and the icon before it where the
     * desktop's GTK settings show images in menus (gtk-menu-images, as
     * GtkImageMenuItem does; Xfce and MATE turn it on, GNOME leaves it
     * off). Off, the items look like the app's own, and the menu opens
     * sooner: loading the icons is most of the time GTK takes for them. */
    gboolean images = FALSE;
    g_object_get (gtk_widget_get_settings (GTK_WIDGET (popup->menu)), "gtk-menu-images", &images, NULL);
    GtkWidget *label = gtk_accel_label_new (title);
    gtk_label_set_xalign (GTK_LABEL (label), 0.0);
    gtk_accel_label_set_accel_widget (GTK_ACCEL_LABEL (label), item);
    guint key = 0;
    GdkModifierType mods = 0;
    if (shortcut)
        gtk_accelerator_parse (shortcut, &key, &mods);
    /* A provider's key that an item of the app's has is the app's here. */
    if (key && !g_hash_table_contains (popup->accels, GUINT_TO_POINTER (gtk3_accel_hash (key, mods))))
        gtk_accel_label_set_accel (GTK_ACCEL_LABEL (label), key, mods);
    if (images && icon && *icon && !radio && !checkable) {
        GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
        gtk_box_pack_start (GTK_BOX (box), gtk_image_new_from_icon_name (icon, GTK_ICON_SIZE_MENU), FALSE, FALSE, 0);
        gtk_box_pack_end (GTK_BOX (box), label, TRUE, TRUE, 0);
        gtk_container_add (GTK_CONTAINER (item), box);
        /* The item's accessible name comes from a label child only. */
        atk_object_set_name (gtk_widget_get_accessible (item), title);
    } else {
        /* As GTK builds an item of its own: fewer widgets to style. */
        gtk_container_add (GTK_CONTAINER (item), label);
    }
    if (subtitle && *subtitle)
        gtk_widget_set_tooltip_text (item, subtitle);
    if (has_attribute (element->props, "disabled"))
        gtk_widget_set_sensitive (item, FALSE);
    if (has_attribute (element->props, "destructive")) {
        /* Themes colour it: GTK's own class, and MenuBus's. */
        gtk_style_context_add_class (gtk_widget_get_style_context (item), "destructive-action");
        gtk_style_context_add_class (gtk_widget_get_style_context (item), "menubus-destructive");
    }
    g_object_set_data_full (G_OBJECT (item), "menubus-id", g_strdup (element->id), g_free);
    g_signal_connect (item, "activate", G_CALLBACK (item_chosen), popup);
    gtk_widget_show_all (item);
    return item;
}

/* A title as shown (no mnemonic underline), folded for comparison. */
gchar *
gtk3_folded_title (const gchar *title)
{
    g_autofree gchar *plain = g_strstrip (g_strdup (title));
    return g_utf8_casefold (plain, -1);
}

guint
gtk3_accel_hash (guint key, GdkModifierType mods)
{
    return (gdk_keyval_to_lower (key) << 8) ^ (mods & gtk_accelerator_get_default_mod_mask ());
}

/* The label an item shows its title in (a GtkAccelLabel in GTK's and
 * GMenuModel's items, maybe inside a box). */
GtkAccelLabel *
gtk3_find_label (GtkWidget *widget)
{
    if (GTK_IS_LABEL (widget))
        return (GtkAccelLabel *) widget;
    if (!GTK_IS_CONTAINER (widget))
        return NULL;
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (widget));
    for (GList *l = children; l; l = l->next) {
        GtkAccelLabel *found = gtk3_find_label (l->data);
        if (found)
            return found;
    }
    return NULL;
}

static gboolean
left_out (Popup *popup, const Element *element)
{
    const gchar *command = NULL, *title = NULL;
    if (has_attribute (element->props, "hidden"))
        return TRUE;
    if (g_variant_lookup (element->props, "command", "&s", &command) && g_hash_table_contains (popup->shown, command))
        return TRUE;
    /* A standard command with the key of an item of the app's is that
     * item; a provider's item with it stays, without the key. */
    const gchar *shortcut = NULL;
    if (command && g_variant_lookup (element->props, "shortcut", "&s", &shortcut)) {
        guint key = 0;
        GdkModifierType mods = 0;
        gtk_accelerator_parse (shortcut, &key, &mods);
        if (key && g_hash_table_contains (popup->accels, GUINT_TO_POINTER (gtk3_accel_hash (key, mods))))
            return TRUE;
    }
    if (!g_variant_lookup (element->props, "title", "&s", &title))
        return FALSE;
    g_autofree gchar *folded = gtk3_folded_title (title);
    return g_hash_table_contains (popup->titles, folded);
}

/* Appends the children of `parent` to `out`: sections between separators
 * (`need_separator` says one must come before the next item), submenus as
 * items with a menu of their own. */
void
gtk3_build (Popup *popup, GArray *elements, const gchar *parent, GPtrArray *out, gboolean *need_separator,
       gboolean radio)
{
    GSList *group = NULL;
    for (guint i = 0; i < elements->len; i++) {
        const Element *element = &g_array_index (elements, Element, i);
        if (strcmp (element->parent, parent) != 0 || left_out (popup, element))
            continue;
        const gchar *type = "action";
        g_variant_lookup (element->props, "type", "&s", &type);
        if (strcmp (type, "menu") == 0 && has_option (element->props, "inline")) {
            GPtrArray *section = g_ptr_array_new ();
            gboolean inner = FALSE;
            gtk3_build (popup, elements, element->id, section, &inner, has_option (element->props, "single-selection"));
            if (section->len > 0) {
                if (out->len > 0)
                    *need_separator = TRUE;
                if (*need_separator) {
                    GtkWidget *separator = gtk_separator_menu_item_new ();
                    gtk_widget_show (separator);
                    g_ptr_array_add (out, separator);
                }
                for (guint k = 0; k < section->len; k++)
                    g_ptr_array_add (out, section->pdata[k]);
                *need_separator = TRUE;
            }
            g_ptr_array_unref (section);
            continue;
        }
        GtkWidget *item;
        if (strcmp (type, "menu") == 0) {
            GPtrArray *children = g_ptr_array_new ();
            gboolean inner = FALSE;
            gtk3_build (popup, elements, element->id, children, &inner, has_option (element->props, "single-selection"));
            if (children->len == 0) {
                g_ptr_array_unref (children);
                continue; /* an empty submenu is not drawn */
            }
            item = make_item (popup, element, FALSE, &group);
            GtkWidget *submenu = gtk_menu_new ();
            for (guint k = 0; k < children->len; k++)
                gtk_menu_shell_append (GTK_MENU_SHELL (submenu), children->pdata[k]);
            gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
            g_ptr_array_unref (children);
        } else if (strcmp (type, "action") == 0) {
            item = make_item (popup, element, radio, &group);
        } else {
            continue;
        }
        if (*need_separator && out->len > 0) {
            GtkWidget *separator = gtk_separator_menu_item_new ();
            gtk_widget_show (separator);
            g_ptr_array_add (out, separator);
        }
        *need_separator = FALSE;
        g_ptr_array_add (out, item);
    }
}

/* Separators stand only between items: none first, last or doubled.
 * Those this hides are marked, so a later layout may show them again;
 * one the app hid itself stays hidden. */
void
gtk3_tidy_separators (GtkMenu *menu)
{
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (menu));
    GtkWidget *pending = NULL;
    gboolean item_before = FALSE;
    for (GList *l = children; l; l = l->next) {
        GtkWidget *child = l->data;
        if (GTK_IS_SEPARATOR_MENU_ITEM (child)) {
            if (!gtk_widget_get_visible (child) && !g_object_get_data (G_OBJECT (child), "menubus-tidied"))
                continue;
            gtk_widget_hide (child);
            g_object_set_data (G_OBJECT (child), "menubus-tidied", GINT_TO_POINTER (1));
            if (item_before && !pending)
                pending = child;
            continue;
        }
        if (!gtk_widget_get_visible (child))
            continue;
        if (pending) {
            gtk_widget_show (pending);
            g_object_set_data (G_OBJECT (pending), "menubus-tidied", NULL);
            pending = NULL;
        }
        item_before = TRUE;
    }
}

