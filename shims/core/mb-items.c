/* What menubusd sends is checked before a toolkit sees it: any process of
 * the session may own menubusd's name, so a menu whose shape or size is
 * not the contract's is not shown (and said under G_MESSAGES_DEBUG). */
#include "menubus-core.h"

#include <string.h>

static gboolean
string_ok (const gchar *value)
{
    return strlen (value) <= MB_MAX_STRING_BYTES;
}

/* Every string a property holds, at any depth, within the bound. */
static gboolean
value_ok (GVariant *value, guint depth)
{
    if (depth > 8)
        return FALSE;
    if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) || g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH))
        return string_ok (g_variant_get_string (value, NULL));
    if (g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT)) {
        g_autoptr (GVariant) inner = g_variant_get_variant (value);
        return value_ok (inner, depth + 1);
    }
    if (g_variant_is_container (value)) {
        gsize n = g_variant_n_children (value);
        if (n > MB_MAX_ELEMENTS)
            return FALSE;
        for (gsize i = 0; i < n; i++) {
            g_autoptr (GVariant) child = g_variant_get_child_value (value, i);
            if (!value_ok (child, depth + 1))
                return FALSE;
        }
    }
    return TRUE;
}

/* A menu's items, a(ssa{sv}), as the contract bounds them: at most
 * MB_MAX_ELEMENTS elements and strings of at most MB_MAX_STRING_BYTES. */
gboolean
mb_items_check (GVariant *items, const gchar *what)
{
    if (!items || !g_variant_is_of_type (items, G_VARIANT_TYPE ("a(ssa{sv})"))) {
        MB_DEBUG ("%s: not a menu (%s)", what, items ? g_variant_get_type_string (items) : "nothing");
        return FALSE;
    }
    gsize n = g_variant_n_children (items);
    if (n > MB_MAX_ELEMENTS) {
        MB_DEBUG ("%s: %" G_GSIZE_FORMAT " elements, over the contract's %d", what, n, MB_MAX_ELEMENTS);
        return FALSE;
    }
    if (!value_ok (items, 0)) {
        MB_DEBUG ("%s: a string or a list over the contract's bounds", what);
        return FALSE;
    }
    /* Ids unique, parents before their children: a toolkit walking the
     * tree never meets a cycle. */
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    for (gsize i = 0; i < n; i++) {
        const gchar *id, *parent;
        g_variant_get_child (items, i, "(&s&s@a{sv})", &id, &parent, NULL);
        if (!*id || g_hash_table_contains (seen, id) || (*parent && !g_hash_table_contains (seen, parent))) {
            MB_DEBUG ("%s: element %" G_GSIZE_FORMAT ": an empty or repeated id, or a parent not before it", what, i);
            return FALSE;
        }
        g_hash_table_add (seen, (gpointer) id);
    }
    return TRUE;
}

/* The items of a `(u a(ssa{sv}))` answer or LayoutChanged signal, or
 * NULL when it is not one (or over the bounds). */
GVariant *
mb_layout_items (GVariant *reply, const gchar *what)
{
    if (!reply || !g_variant_is_of_type (reply, G_VARIANT_TYPE ("(ua(ssa{sv}))"))) {
        MB_DEBUG ("%s: not a layout (%s)", what, reply ? g_variant_get_type_string (reply) : "nothing");
        return NULL;
    }
    GVariant *items = g_variant_get_child_value (reply, 1);
    if (!mb_items_check (items, what)) {
        g_variant_unref (items);
        return NULL;
    }
    return items;
}
