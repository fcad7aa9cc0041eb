/* Provider shortcuts (a provider's `shortcut`, shown beside its item in
 * edit menus, as the macOS Services shortcuts): a key the app let pass,
 * pressed while a field has a selection, chooses the item of the field's
 * edit menu whose shortcut it is, as the menu would. The toolkit asks only
 * after the app let the key pass, so a key the app uses stays the app's;
 * a key with neither Control, Alt nor Super is typing and is never looked
 * at. The menu read ahead for this very selection answers at once; else
 * one GetEditMenu asks, and its answer counts only while the selection
 * stands as it was. */
#include "menubus-core.h"

#include <string.h>

enum {
    MOD_CONTROL = 1 << 0,
    MOD_SHIFT = 1 << 1,
    MOD_ALT = 1 << 2,
    MOD_SUPER = 1 << 3,
    MOD_META = 1 << 4,
    MOD_HYPER = 1 << 5,
};

static const struct {
    const gchar *name;
    guint mod;
} modifier_names[] = {
    { "control", MOD_CONTROL }, { "ctrl", MOD_CONTROL }, { "ctl", MOD_CONTROL }, { "primary", MOD_CONTROL },
    { "shift", MOD_SHIFT },     { "shft", MOD_SHIFT },   { "alt", MOD_ALT },     { "mod1", MOD_ALT },
    { "super", MOD_SUPER },     { "meta", MOD_META },    { "hyper", MOD_HYPER },
};

/* GTK's accelerator syntax (`<Control><Alt>u`): the modifiers and the key
 * name, a letter in lower case as GTK reads `<Control>U`; FALSE when it is
 * not one MenuBus matches (`<Release>`, `<Mod4>`, nothing after them). */
static gboolean
accel_parse (const gchar *text, guint *mods, gchar **key)
{
    *mods = 0;
    const gchar *p = text;
    while (*p == '<') {
        const gchar *close = strchr (p, '>');
        if (!close)
            return FALSE;
        g_autofree gchar *name = g_ascii_strdown (p + 1, close - p - 1);
        guint mod = 0;
        for (gsize i = 0; i < G_N_ELEMENTS (modifier_names); i++)
            if (strcmp (name, modifier_names[i].name) == 0)
                mod = modifier_names[i].mod;
        if (!mod)
            return FALSE;
        *mods |= mod;
        p = close + 1;
    }
    if (!*p || strchr (p, '<') || strchr (p, '>'))
        return FALSE;
    *key = p[1] == '\0' ? g_ascii_strdown (p, 1) : g_strdup (p);
    return TRUE;
}

/* The id of the item of `items` (a(ssa{sv})) whose shortcut is this key:
 * an action, neither disabled nor hidden, and not under a hidden or
 * disabled submenu. NULL when none has it. */
static gchar *
find_item (GVariant *items, guint mods, const gchar *key)
{
    g_autoptr (GHashTable) unreachable = g_hash_table_new (g_str_hash, g_str_equal);
    gsize n = g_variant_n_children (items);
    for (gsize i = 0; i < n; i++) {
        const gchar *id, *parent, *type = "action", *shortcut = NULL;
        g_autoptr (GVariant) properties = NULL;
        g_variant_get_child (items, i, "(&s&s@a{sv})", &id, &parent, &properties);
        g_autofree const gchar **attributes = NULL;
        g_variant_lookup (properties, "type", "&s", &type);
        g_variant_lookup (properties, "shortcut", "&s", &shortcut);
        g_variant_lookup (properties, "attributes", "^a&s", &attributes);
        gboolean off = *parent && g_hash_table_contains (unreachable, parent);
        for (gsize a = 0; attributes && attributes[a]; a++)
            off = off || strcmp (attributes[a], "disabled") == 0 || strcmp (attributes[a], "hidden") == 0;
        if (off) {
            g_hash_table_add (unreachable, (gpointer) id);
            continue;
        }
        guint item_mods;
        g_autofree gchar *item_key = NULL;
        if (strcmp (type, "action") == 0 && shortcut && accel_parse (shortcut, &item_mods, &item_key) &&
            item_mods == mods && strcmp (item_key, key) == 0)
            return g_strdup (id);
    }
    return NULL;
}

void
mb_field_choose (MbField *field, const gchar *item_id, guint32 timestamp)
{
    if (!field || !item_id)
        return;
    mb_field_dismiss_bar (field);
    GVariant *shown = NULL;
    /* A menu never drawn: it turns no reading ahead on (mb_menu_present would). */
    gboolean reads_ahead = mb_core.reads_ahead;
    MbMenu *menu = mb_menu_present (field, NULL, NULL, &shown);
    mb_core.reads_ahead = reads_ahead;
    g_clear_pointer (&shown, g_variant_unref);
    if (!menu)
        return;
    MB_DEBUG ("choosing %s", item_id);
    mb_menu_activate (menu, item_id, timestamp);
    mb_menu_close (menu);
}

typedef struct {
    guint generation;
    guint mods;
    gchar *key;
    guint32 timestamp;
} Ask;

static void
ask_free (gpointer data)
{
    Ask *ask = data;
    g_free (ask->key);
    g_free (ask);
}

static void
answered (MbField *field, GVariant *items, gpointer data)
{
    Ask *ask = data;
    /* Only for the selection the key was pressed on. */
    if (field->generation != ask->generation)
        return;
    g_autofree gchar *id = find_item (items, ask->mods, ask->key);
    if (id)
        mb_field_choose (field, id, ask->timestamp);
}

gboolean
mb_field_shortcut (MbField *field, const gchar *accelerator, guint32 timestamp)
{
    guint mods;
    g_autofree gchar *key = NULL;
    if (!field || !mb_core.bus || !mb_core.owner || !accelerator || !accel_parse (accelerator, &mods, &key) ||
        !(mods & (MOD_CONTROL | MOD_ALT | MOD_SUPER)))
        return FALSE;
    MbSelection selection = { 0 };
    field->ops->selection (field->widget, &selection);
    gboolean selected = selection.kind == MB_SELECTION_RANGE || selection.kind == MB_SELECTION_ALL;
    mb_selection_clear (&selection);
    if (!selected)
        return FALSE;
    mb_field_catch_up (field);
    /* Taken already for this selection (pressed twice, or held): once. */
    guint hash = g_str_hash (key) ^ (mods << 24);
    if (field->shortcut_generation == field->generation + 1 && field->shortcut_hash == hash)
        return FALSE;
    GVariant *ahead = mb_field_menu_ahead (field);
    if (ahead) {
        g_autofree gchar *id = find_item (ahead, mods, key);
        if (!id)
            return FALSE;
        field->shortcut_hash = hash;
        field->shortcut_generation = field->generation + 1;
        mb_field_choose (field, id, timestamp);
        return TRUE;
    }
    if (mb_core.stalled)
        return FALSE;
    field->shortcut_hash = hash;
    field->shortcut_generation = field->generation + 1;
    /* Nothing read ahead for this selection: asked now, chosen when the
     * answer comes. The key is unused meanwhile (the app let it pass). */
    Ask *ask = g_new0 (Ask, 1);
    ask->generation = field->generation;
    ask->mods = mods;
    ask->key = g_steal_pointer (&key);
    ask->timestamp = timestamp;
    mb_field_ask_edit_menu (field, answered, ask, ask_free);
    return FALSE;
}
