/* MenuBus's section of a GTK 4 extra menu (gtk4-menu.h says what). The
 * items map as menubusd's org.gtk.Menus export maps them: an inline menu
 * is a section, another menu a submenu (left out while empty), an action
 * an item whose action is its own; hidden items, deferred ones not yet
 * resolved and anything else are left out. Radio items (children of a
 * single-selection menu) and checkmarks (a state, or Bold, Italic,
 * Underline) get stateful actions, so GTK draws them as such. */
#include "gtk4-menu.h"

#include <string.h>

/* A menu of the section: the top level, or a section's or submenu's. */
typedef struct {
    GMenu *menu;
    GPtrArray *keys; /* what each item of `menu` shows, one string an item */
    gboolean used;   /* reached by the update under way */
} Sub;

typedef struct {
    const gchar *id;
    const gchar *parent;
    GVariant *props;
} Element;

struct _Gtk4Menu {
    Gtk4MenuChosen chosen;
    Gtk4MenuSubmenuGone gone;
    gpointer data;
    Sub *top;
    GHashTable *subs;    /* element id → Sub of its section or submenu */
    GSimpleActionGroup *actions;
    GHashTable *numbers; /* element id → the number in its action's name */
    guint next_number;
    GHashTable *named;   /* action names the update under way gives items */
};

static Sub *
sub_new (void)
{
    Sub *sub = g_new0 (Sub, 1);
    sub->menu = g_menu_new ();
    sub->keys = g_ptr_array_new_with_free_func (g_free);
    return sub;
}

static void
sub_free (gpointer data)
{
    Sub *sub = data;
    g_object_unref (sub->menu);
    g_ptr_array_unref (sub->keys);
    g_free (sub);
}

static gboolean
has_string (GVariant *props, const gchar *key, const gchar *value)
{
    g_autofree const gchar **values = NULL;
    return g_variant_lookup (props, key, "^a&s", &values) && g_strv_contains (values, value);
}

/* A title as GMenu shows it: no mnemonic, so underscores doubled. */
static gchar *
label_of (const gchar *title)
{
    GString *label = g_string_new (NULL);
    for (const gchar *c = title; *c; c++) {
        if (*c == '_')
            g_string_append_c (label, '_');
        g_string_append_c (label, *c);
    }
    return g_string_free (label, FALSE);
}

static void
activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
    Gtk4Menu *menu = data;
    const gchar *id = g_object_get_data (G_OBJECT (action), "menubus-id");
    if (id && menu->chosen)
        menu->chosen (id, menu->data);
}

/* The action of an action element, made or brought up to date: `i<n>`
 * plain, `c<n>` a checkmark (a boolean state), `r<n>` a radio item (a
 * string state, the id of the item that is on, each item its own id as
 * target). An item changing its kind gets another name. */
static gchar *
action_for (Gtk4Menu *menu, const Element *element, gboolean radio)
{
    guint number = GPOINTER_TO_UINT (g_hash_table_lookup (menu->numbers, element->id));
    if (!number) {
        number = ++menu->next_number;
        g_hash_table_insert (menu->numbers, g_strdup (element->id), GUINT_TO_POINTER (number));
    }
    const gchar *state = NULL, *command = NULL;
    g_variant_lookup (element->props, "state", "&s", &state);
    g_variant_lookup (element->props, "command", "&s", &command);
    gboolean check = !radio && ((state && strcmp (state, "off") != 0) || g_strcmp0 (command, "bold") == 0 ||
                                g_strcmp0 (command, "italic") == 0 || g_strcmp0 (command, "underline") == 0);
    gchar *name = g_strdup_printf ("%c%u", radio ? 'r' : check ? 'c' : 'i', number);
    GAction *action = g_action_map_lookup_action (G_ACTION_MAP (menu->actions), name);
    if (!action) {
        GSimpleAction *made;
        if (radio)
            made = g_simple_action_new_stateful (name, G_VARIANT_TYPE_STRING, g_variant_new_string (""));
        else if (check)
            made = g_simple_action_new_stateful (name, NULL, g_variant_new_boolean (FALSE));
        else
            made = g_simple_action_new (name, NULL);
        g_object_set_data_full (G_OBJECT (made), "menubus-id", g_strdup (element->id), g_free);
        g_signal_connect (made, "activate", G_CALLBACK (activated), menu);
        g_action_map_add_action (G_ACTION_MAP (menu->actions), G_ACTION (made));
        action = G_ACTION (made);
        g_object_unref (made);
    }
    gboolean on = g_strcmp0 (state, "on") == 0;
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), !has_string (element->props, "attributes", "disabled"));
    if (radio)
        g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_string (on ? element->id : ""));
    else if (check)
        g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (on));
    g_hash_table_add (menu->named, g_strdup (name));
    return name;
}

/* The item of `key` left the menu: a submenu's, the toolkit hears of. */
static void
item_gone (Gtk4Menu *menu, const gchar *key)
{
    if (key[0] != 'm' || !menu->gone)
        return;
    /* m, id, title, icon */
    g_auto (GStrv) parts = g_strsplit (key, "\x1f", 4);
    g_autofree gchar *label = g_strv_length (parts) == 4 ? label_of (parts[2]) : NULL;
    if (label)
        menu->gone (label, menu->data);
}

static void
remove_at (Gtk4Menu *menu, Sub *sub, guint at)
{
    g_autofree gchar *key = g_ptr_array_steal_index (sub->keys, at);
    g_menu_remove (sub->menu, (gint) at);
    item_gone (menu, key);
}

/* `sub` shows `keys` (with `items` for those it lacks): unchanged items
 * stay; those that went are removed first, then the new ones inserted
 * one by one (an item that moved is removed and inserted again). */
static void
apply (Gtk4Menu *menu, Sub *sub, GPtrArray *keys, GPtrArray *items)
{
    g_autoptr (GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint j = 0; j < keys->len; j++)
        g_hash_table_add (wanted, keys->pdata[j]);
    for (guint k = sub->keys->len; k-- > 0;)
        if (!g_hash_table_contains (wanted, sub->keys->pdata[k]))
            remove_at (menu, sub, k);
    guint at = 0;
    for (guint j = 0; j < keys->len; j++) {
        const gchar *key = keys->pdata[j];
        if (at < sub->keys->len && strcmp (sub->keys->pdata[at], key) == 0) {
            at++;
            continue;
        }
        guint found = at + 1;
        while (found < sub->keys->len && strcmp (sub->keys->pdata[found], key) != 0)
            found++;
        if (found < sub->keys->len) {
            /* The items before it moved: they come again further on. */
            for (guint k = at; k < found; k++)
                remove_at (menu, sub, at);
        } else {
            g_menu_insert_item (sub->menu, (gint) at, items->pdata[j]);
            g_ptr_array_insert (sub->keys, (gint) at, g_strdup (key));
        }
        at++;
    }
    while (sub->keys->len > at)
        remove_at (menu, sub, at);
}

static void fill (Gtk4Menu *menu, GArray *elements, const gchar *container, gboolean radio, Sub *sub);

/* An icon as the contract has it, a themed name: GTK takes a string with
 * a slash or a colon as a file or URI and would load it. */
static gboolean
themed_icon (const gchar *icon)
{
    return *icon && !strchr (icon, '/') && !strchr (icon, ':');
}

/* The item of a menu element, its section or submenu filled first; NULL
 * when it would be an empty submenu. */
static GMenuItem *
menu_item (Gtk4Menu *menu, GArray *elements, const Element *element, const gchar *title, gchar **key)
{
    Sub *inner = g_hash_table_lookup (menu->subs, element->id);
    if (!inner) {
        inner = sub_new ();
        g_hash_table_insert (menu->subs, g_strdup (element->id), inner);
    }
    inner->used = TRUE;
    fill (menu, elements, element->id, has_string (element->props, "options", "single-selection"), inner);
    const gchar *icon = "";
    g_variant_lookup (element->props, "icon", "&s", &icon);
    g_autofree gchar *label = label_of (title);
    if (has_string (element->props, "options", "inline")) {
        *key = g_strdup_printf ("s\x1f%s\x1f%s", element->id, title);
        return g_menu_item_new_section (*title ? label : NULL, G_MENU_MODEL (inner->menu));
    }
    if (inner->keys->len == 0)
        return NULL;
    *key = g_strdup_printf ("m\x1f%s\x1f%s\x1f%s", element->id, title, icon);
    GMenuItem *item = g_menu_item_new_submenu (label, G_MENU_MODEL (inner->menu));
    if (themed_icon (icon))
        g_menu_item_set_attribute (item, G_MENU_ATTRIBUTE_ICON, "s", icon);
    return item;
}

static GMenuItem *
action_item (Gtk4Menu *menu, const Element *element, const gchar *title, gboolean radio, gchar **key)
{
    const gchar *icon = "", *accel = "";
    g_variant_lookup (element->props, "icon", "&s", &icon);
    g_variant_lookup (element->props, "shortcut", "&s", &accel);
    g_autofree gchar *name = action_for (menu, element, radio);
    g_autofree gchar *label = label_of (title);
    g_autofree gchar *detailed = g_strconcat (GTK4_MENU_ACTION_PREFIX ".", name, NULL);
    GMenuItem *item = g_menu_item_new (label, NULL);
    g_menu_item_set_attribute (item, G_MENU_ATTRIBUTE_ACTION, "s", detailed);
    if (radio)
        g_menu_item_set_attribute (item, G_MENU_ATTRIBUTE_TARGET, "s", element->id);
    if (themed_icon (icon))
        g_menu_item_set_attribute (item, G_MENU_ATTRIBUTE_ICON, "s", icon);
    if (*accel)
        g_menu_item_set_attribute (item, "accel", "s", accel);
    *key = g_strdup_printf ("a\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", element->id, title, name, icon, accel);
    return item;
}

/* `sub` shows the children of `container`. */
static void
fill (Gtk4Menu *menu, GArray *elements, const gchar *container, gboolean radio, Sub *sub)
{
    g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
    for (guint i = 0; i < elements->len; i++) {
        const Element *element = &g_array_index (elements, Element, i);
        if (strcmp (element->parent, container) != 0 || has_string (element->props, "attributes", "hidden"))
            continue;
        const gchar *type = "action", *title = "";
        g_variant_lookup (element->props, "type", "&s", &type);
        g_variant_lookup (element->props, "title", "&s", &title);
        gchar *key = NULL;
        GMenuItem *item = NULL;
        if (strcmp (type, "menu") == 0)
            item = menu_item (menu, elements, element, title, &key);
        else if (strcmp (type, "action") == 0)
            item = action_item (menu, element, title, radio, &key);
        if (!item)
            continue;
        g_ptr_array_add (keys, key);
        g_ptr_array_add (items, item);
    }
    apply (menu, sub, keys, items);
}

static gboolean
sub_unused (gpointer key, gpointer value, gpointer data)
{
    return !((Sub *) value)->used;
}

static gboolean
number_unused (gpointer key, gpointer value, gpointer data)
{
    return !g_hash_table_contains (data, key);
}

void
gtk4_menu_update (Gtk4Menu *menu, GVariant *items)
{
    g_autoptr (GArray) elements = g_array_new (FALSE, FALSE, sizeof (Element));
    g_autoptr (GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
    gsize n = items ? g_variant_n_children (items) : 0;
    for (gsize i = 0; i < n; i++) {
        Element element;
        g_variant_get_child (items, i, "(&s&s@a{sv})", &element.id, &element.parent, &element.props);
        g_array_append_val (elements, element);
        g_hash_table_add (ids, (gpointer) element.id);
    }
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init (&iter, menu->subs);
    while (g_hash_table_iter_next (&iter, NULL, &value))
        ((Sub *) value)->used = FALSE;
    g_hash_table_remove_all (menu->named);

    fill (menu, elements, "", FALSE, menu->top);

    /* What no item names any more goes, after the items that named it;
     * the submenus of a section or submenu that went went with it. */
    g_hash_table_iter_init (&iter, menu->subs);
    while (g_hash_table_iter_next (&iter, NULL, &value))
        for (guint i = 0; !((Sub *) value)->used && i < ((Sub *) value)->keys->len; i++)
            item_gone (menu, ((Sub *) value)->keys->pdata[i]);
    g_hash_table_foreach_remove (menu->subs, sub_unused, NULL);
    g_auto (GStrv) names = g_action_group_list_actions (G_ACTION_GROUP (menu->actions));
    for (gchar **name = names; *name; name++)
        if (!g_hash_table_contains (menu->named, *name))
            g_action_map_remove_action (G_ACTION_MAP (menu->actions), *name);
    g_hash_table_foreach_remove (menu->numbers, number_unused, ids);
    for (guint i = 0; i < elements->len; i++)
        g_variant_unref (g_array_index (elements, Element, i).props);
}

Gtk4Menu *
gtk4_menu_new (Gtk4MenuChosen chosen, Gtk4MenuSubmenuGone gone, gpointer data)
{
    Gtk4Menu *menu = g_new0 (Gtk4Menu, 1);
    menu->chosen = chosen;
    menu->gone = gone;
    menu->data = data;
    menu->top = sub_new ();
    menu->subs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, sub_free);
    menu->actions = g_simple_action_group_new ();
    menu->numbers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    menu->named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    return menu;
}

GMenuModel *
gtk4_menu_model (Gtk4Menu *menu)
{
    return G_MENU_MODEL (menu->top->menu);
}

GActionGroup *
gtk4_menu_actions (Gtk4Menu *menu)
{
    return G_ACTION_GROUP (menu->actions);
}

gboolean
gtk4_menu_is_empty (Gtk4Menu *menu)
{
    return menu->top->keys->len == 0;
}

void
gtk4_menu_free (Gtk4Menu *menu)
{
    if (!menu)
        return;
    /* An action a popover still holds chooses nothing once the menu is gone. */
    g_auto (GStrv) names = g_action_group_list_actions (G_ACTION_GROUP (menu->actions));
    for (gchar **name = names; *name; name++)
        g_signal_handlers_disconnect_by_data (g_action_map_lookup_action (G_ACTION_MAP (menu->actions), *name), menu);
    sub_free (menu->top);
    g_hash_table_unref (menu->subs);
    g_object_unref (menu->actions);
    g_hash_table_unref (menu->numbers);
    g_hash_table_unref (menu->named);
    g_free (menu);
}
