/* The edit bar, opt-in ([Edit Bar] of menubus/integration.conf): a
 * selection made with the pointer that stands still for MB_BAR_WAIT_MS
 * gets a compact bar over it, as iOS shows its edit menu: the edit
 * commands that apply, then the providers' items, from the field's edit
 * menu (read ahead, else asked once). The toolkit draws it (`show_bar`)
 * without taking the keyboard focus, and hides it on a key, a click
 * elsewhere, a scroll or Escape (mb_field_dismiss_bar); the core hides it
 * when the selection changes, the field loses the focus or menubusd goes. */
#include "menubus-core.h"

#include <string.h>

/* The commands the bar shows, in its order; the providers' items follow.
 * Delete and Select All stay in the whole menu ("›"), as on iOS, so that
 * providers find room within MB_BAR_MAX_ITEMS. */
static const gchar *const bar_commands[] = { "cut", "copy", "paste", "lookup", "translate", "search-web", "share", NULL };

static gint bar_setting = -1; /* -1 unread, else whether the bar is on for this program */

static gboolean
listed (GKeyFile *file, const gchar *group, const gchar *key, const gchar *name)
{
    gsize n = 0;
    g_auto (GStrv) apps = g_key_file_get_string_list (file, group, key, &n, NULL);
    for (gsize i = 0; i < n; i++)
        if (g_strcmp0 (g_strstrip (apps[i]), name) == 0)
            return TRUE;
    return FALSE;
}

/* [Edit Bar] of the first integration.conf that has the group (the user's
 * before the system's): Enabled=true turns it on for every program,
 * Apps= for the programs it lists (by name, as [Exclude] Apps=). */
gboolean
mb_shim_edit_bar_enabled (void)
{
    if (bar_setting >= 0)
        return bar_setting;
    bar_setting = FALSE;
    const gchar *name = g_get_prgname ();
    g_autoptr (GPtrArray) files = mb_integration_files ();
    for (guint i = 0; i < files->len; i++) {
        GKeyFile *file = files->pdata[i];
        if (!g_key_file_has_group (file, "Edit Bar"))
            continue;
        bar_setting = g_key_file_get_boolean (file, "Edit Bar", "Enabled", NULL) ||
                      (name && listed (file, "Edit Bar", "Apps", name));
        break;
    }
    return bar_setting;
}

/* What the bar was shown for, to tell a change: kind, length and text. */
static gchar *
selection_key (MbField *field)
{
    MbSelection selection = { 0 };
    field->ops->selection (field->widget, &selection);
    gchar *key = selection.kind == MB_SELECTION_RANGE || selection.kind == MB_SELECTION_ALL
                     ? g_strdup_printf ("%d:%u:%s", selection.kind, selection.length, selection.text ? selection.text : "")
                     : NULL;
    mb_selection_clear (&selection);
    return key;
}

static gboolean
is_bar_command (const gchar *command)
{
    return command && g_strv_contains (bar_commands, command);
}

/* The bar's items from an edit menu: the actions at its top level (inline
 * sections included) that are neither disabled nor hidden: the commands
 * above in that order, then the providers' own items, at most
 * MB_BAR_MAX_ITEMS; a(ssa{sv}), every parent "". NULL when none. */
GVariant *
mb_bar_items (GVariant *menu)
{
    g_autoptr (GHashTable) top = g_hash_table_new (g_str_hash, g_str_equal);
    g_hash_table_add (top, (gpointer) "");
    g_autoptr (GPtrArray) commands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
    g_autoptr (GPtrArray) providers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
    gsize n = g_variant_n_children (menu);
    for (gsize i = 0; i < n; i++) {
        const gchar *id, *parent, *type = "action", *command = NULL;
        g_autoptr (GVariant) properties = NULL;
        g_variant_get_child (menu, i, "(&s&s@a{sv})", &id, &parent, &properties);
        if (!g_hash_table_contains (top, parent))
            continue;
        g_autofree const gchar **attributes = NULL, **options = NULL;
        g_variant_lookup (properties, "type", "&s", &type);
        g_variant_lookup (properties, "command", "&s", &command);
        g_variant_lookup (properties, "attributes", "^a&s", &attributes);
        g_variant_lookup (properties, "options", "^a&s", &options);
        if (attributes && (g_strv_contains (attributes, "disabled") || g_strv_contains (attributes, "hidden")))
            continue; /* a hidden section's items with it */
        if (strcmp (type, "menu") == 0 && options && g_strv_contains (options, "inline")) {
            g_hash_table_add (top, (gpointer) id);
            continue;
        }
        if (strcmp (type, "action") != 0)
            continue;
        GVariant *element = g_variant_ref_sink (g_variant_new ("(ss@a{sv})", id, "", properties));
        if (is_bar_command (command))
            g_ptr_array_add (commands, element);
        else if (g_str_has_prefix (id, "menubus:provider:"))
            g_ptr_array_add (providers, element);
        else
            g_variant_unref (element);
    }
    GVariantBuilder items;
    g_variant_builder_init (&items, G_VARIANT_TYPE ("a(ssa{sv})"));
    guint added = 0;
    for (const gchar *const *wanted = bar_commands; *wanted && added < MB_BAR_MAX_ITEMS; wanted++)
        for (guint i = 0; i < commands->len && added < MB_BAR_MAX_ITEMS; i++) {
            g_autoptr (GVariant) properties = g_variant_get_child_value (commands->pdata[i], 2);
            const gchar *command = NULL;
            if (g_variant_lookup (properties, "command", "&s", &command) && strcmp (command, *wanted) == 0) {
                g_variant_builder_add_value (&items, commands->pdata[i]);
                added++;
            }
        }
    for (guint i = 0; i < providers->len && added < MB_BAR_MAX_ITEMS; i++, added++)
        g_variant_builder_add_value (&items, providers->pdata[i]);
    GVariant *result = g_variant_ref_sink (g_variant_builder_end (&items));
    if (added == 0)
        g_clear_pointer (&result, g_variant_unref);
    return result;
}

static void
show (MbField *field, GVariant *menu)
{
    g_autoptr (GVariant) items = mb_bar_items (menu);
    if (!items)
        return;
    field->bar_shown = TRUE;
    field->ops->show_bar (field->widget, items);
}

static void
answered (MbField *field, GVariant *menu, gpointer data)
{
    const gchar *key = data;
    /* Only for the selection it was asked for, standing as it was. */
    g_autofree gchar *now = field->has_focus ? selection_key (field) : NULL;
    if (g_strcmp0 (field->bar_key, key) == 0 && g_strcmp0 (now, key) == 0)
        show (field, menu);
}

static gboolean
bar_timeout (gpointer data)
{
    MbField *field = data;
    field->bar_timer = 0;
    g_autofree gchar *key = selection_key (field);
    if (!key || g_strcmp0 (key, field->bar_key) != 0 || !field->has_focus || !mb_core.owner || mb_core.stalled)
        return G_SOURCE_REMOVE;
    mb_field_catch_up (field);
    GVariant *ahead = mb_field_menu_ahead (field);
    if (ahead) {
        show (field, ahead);
        return G_SOURCE_REMOVE;
    }
    mb_field_ask_edit_menu (field, answered, g_steal_pointer (&key), g_free);
    return G_SOURCE_REMOVE;
}

void
mb_field_pointer_selected (MbField *field)
{
    if (!field || !field->ops->show_bar || !mb_shim_edit_bar_enabled () || !mb_core.owner)
        return;
    g_free (field->bar_key);
    field->bar_key = selection_key (field);
    if (!field->bar_key)
        return;
    if (field->bar_timer)
        g_source_remove (field->bar_timer);
    field->bar_timer = g_timeout_add (MB_BAR_WAIT_MS, bar_timeout, field);
}

void
mb_field_dismiss_bar (MbField *field)
{
    if (!field)
        return;
    if (field->bar_timer) {
        g_source_remove (field->bar_timer);
        field->bar_timer = 0;
    }
    g_clear_pointer (&field->bar_key, g_free);
    if (field->bar_shown) {
        field->bar_shown = FALSE;
        if (field->ops->hide_bar)
            field->ops->hide_bar (field->widget);
    }
}

/* The field changed: the bar goes when its selection is no longer the one
 * it was shown (or is about to be shown) for. */
void
mb_bar_field_changed (MbField *field)
{
    if (!field->bar_timer && !field->bar_shown)
        return;
    g_autofree gchar *key = field->has_focus ? selection_key (field) : NULL;
    if (!key || g_strcmp0 (key, field->bar_key) != 0)
        mb_field_dismiss_bar (field);
}
