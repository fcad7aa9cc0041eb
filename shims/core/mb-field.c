/* Each text field as a context of menubusd: published when focused (at
 * most MB_MAX_CONTEXTS a process), its selection and the clipboard's
 * types following, gathered for MB_COALESCE_MS with at most one update in
 * flight, and its edit menu read ahead once the selection stands still.
 * Every call made for a field carries its serial and its cancellable, so
 * an answer that comes after the field went finds nothing. */
#include "menubus-core.h"

#include <string.h>

MbField *
mb_field_lookup (guint serial)
{
    return mb_core.fields ? g_hash_table_lookup (mb_core.fields, GUINT_TO_POINTER (serial)) : NULL;
}

MbField *
mb_field_by_context (const gchar *context_id)
{
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init (&iter, mb_core.fields);
    while (g_hash_table_iter_next (&iter, NULL, &value))
        if (g_strcmp0 (((MbField *) value)->context_id, context_id) == 0)
            return value;
    return NULL;
}

MbField *
mb_field_new (gpointer widget, const MbFieldOps *ops)
{
    MbField *field = g_new0 (MbField, 1);
    field->widget = widget;
    field->ops = ops;
    field->serial = ++mb_core.next_field;
    const gchar *toolkit = mb_core.toolkit ? mb_core.toolkit : "field";
    field->context_id = g_strdup_printf ("%s-%u", toolkit, field->serial);
    /* A token of this process keeps two running copies of one app apart. */
    field->document_id = g_strdup_printf ("%s-%08x-%u", toolkit, mb_core.token, field->serial);
    field->cancellable = g_cancellable_new ();
    field->action_edits = g_array_new (FALSE, TRUE, sizeof (MbEdit));
    field->run_end = -1;
    if (!mb_core.fields)
        mb_core.fields = g_hash_table_new (NULL, NULL);
    g_hash_table_insert (mb_core.fields, GUINT_TO_POINTER (field->serial), field);
    return field;
}

void
mb_field_free (MbField *field)
{
    if (!field)
        return;
    if (mb_core.owner && field->published)
        mb_call ("RemoveContext", g_variant_new ("(s)", field->context_id), FALSE);
    if (mb_core.owner && field->has_history)
        mb_call ("ClearUndo", g_variant_new ("(s)", field->document_id), FALSE);
    g_cancellable_cancel (field->cancellable);
    g_hash_table_remove (mb_core.fields, GUINT_TO_POINTER (field->serial));
    if (field->timeout_id)
        g_source_remove (field->timeout_id);
    if (field->bar_timer)
        g_source_remove (field->bar_timer); /* the toolkit's bar goes with its widget */
    g_free (field->bar_key);
    mb_field_forget_menu (field, FALSE);
    g_clear_pointer (&field->last_sent, g_variant_unref);
    if (mb_core.focused == field)
        mb_core.focused = NULL;
    mb_clear_edits (field->action_edits);
    g_array_unref (field->action_edits);
    g_object_unref (field->cancellable);
    g_free (field->action_name);
    g_free (field->context_id);
    g_free (field->document_id);
    g_free (field);
}

const gchar *
mb_field_context_id (MbField *field)
{
    return field->context_id;
}

static GVariant *
context_dict (MbField *field, MbFieldFlags flags)
{
    GVariantBuilder context, commands;
    g_variant_builder_init (&context, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_init (&commands, G_VARIANT_TYPE_STRING_ARRAY);
    gboolean editable = (flags & MB_FIELD_EDITABLE) != 0;
    gboolean rich = (flags & MB_FIELD_RICH_TEXT) != 0;
    g_variant_builder_add (&context, "{sv}", "kind", g_variant_new_string ("text"));
    g_variant_builder_add (&context, "{sv}", "editable", g_variant_new_boolean (editable));
    g_variant_builder_add (&context, "{sv}", "has-content", g_variant_new_boolean ((flags & MB_FIELD_HAS_CONTENT) != 0));
    if (rich) {
        static const gchar *const types[] = { "text/html", "text/plain", NULL };
        g_variant_builder_add (&context, "{sv}", "rich-text", g_variant_new_boolean (TRUE));
        g_variant_builder_add (&context, "{sv}", "content-types", g_variant_new_strv (types, -1));
    }
    /* What the shim can really do in this field; providers serve the roles. */
    static const gchar *const always[] = { "copy", "select-all", "lookup", "translate", "search-web", "share", NULL };
    static const gchar *const editing[] = { "cut", "paste", "delete", "replace-selection", NULL };
    static const gchar *const formatting[] = { "bold", "italic", "underline", "paste-and-match-style", NULL };
    for (const gchar *const *c = always; *c; c++)
        g_variant_builder_add (&commands, "s", *c);
    if (editable)
        for (const gchar *const *c = editing; *c; c++)
            g_variant_builder_add (&commands, "s", *c);
    if (editable && (flags & (MB_FIELD_MENUBUS_UNDO | MB_FIELD_OWN_UNDO))) {
        g_variant_builder_add (&commands, "s", "undo");
        g_variant_builder_add (&commands, "s", "redo");
    }
    if (editable && (flags & MB_FIELD_MENUBUS_UNDO) && !(flags & MB_FIELD_OWN_UNDO))
        g_variant_builder_add (&context, "{sv}", "document", g_variant_new_string (field->document_id));
    if (editable && rich)
        for (const gchar *const *c = formatting; *c; c++)
            g_variant_builder_add (&commands, "s", *c);
    g_variant_builder_add (&context, "{sv}", "supported-commands", g_variant_builder_end (&commands));
    return g_variant_builder_end (&context);
}

static GVariant *
selection_dict (MbField *field)
{
    static const gchar *const kinds[] = { "none", "caret", "range", "all" };
    MbSelection selection = { 0 };
    field->ops->selection (field->widget, &selection);
    GVariantBuilder dict;
    g_variant_builder_init (&dict, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&dict, "{sv}", "kind", g_variant_new_string (kinds[selection.kind]));
    g_variant_builder_add (&dict, "{sv}", "length", g_variant_new_uint32 (selection.length));
    /* Longer text is not cut: providers ask GetSelectedText, which says why it cannot. */
    if (selection.text && *selection.text && strlen (selection.text) <= MB_MAX_TEXT_BYTES)
        g_variant_builder_add (&dict, "{sv}", "text", g_variant_new_string (selection.text));
    if (selection.attributes)
        g_variant_builder_add (&dict, "{sv}", "attributes",
                               g_variant_new_strv ((const gchar *const *) selection.attributes, -1));
    g_variant_builder_add (&dict, "{sv}", "focused", g_variant_new_boolean (field->has_focus));
    if (mb_core.clipboard)
        g_variant_builder_add (&dict, "{sv}", "pasteboard-types",
                               g_variant_new_strv ((const gchar *const *) mb_core.clipboard, -1));
    mb_selection_clear (&selection);
    return g_variant_builder_end (&dict);
}

/* Whether `text` is what the field has selected now. */
gboolean
mb_field_selects (MbField *field, const gchar *text)
{
    MbSelection selection = { 0 };
    field->ops->selection (field->widget, &selection);
    gboolean same = g_strcmp0 (selection.text ? selection.text : "", text) == 0;
    mb_selection_clear (&selection);
    return same;
}

void
mb_selection_clear (MbSelection *selection)
{
    g_clear_pointer (&selection->text, g_free);
    g_clear_pointer (&selection->attributes, g_strfreev);
}

/* GetEditMenu's arguments for the field, with the process's omitted commands. */
GVariant *
mb_edit_menu_args (MbField *field)
{
    GVariantBuilder options;
    g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
    if (mb_core.omit)
        g_variant_builder_add (&options, "{sv}", "omit-commands",
                               g_variant_new_strv ((const gchar *const *) mb_core.omit, -1));
    return g_variant_new ("(ss@a{sv})", "", field->context_id, g_variant_builder_end (&options));
}

/* ---------- reading the edit menu ahead ---------- */

typedef struct {
    guint serial;
    guint generation;
} Prefetch;

static void
prefetch_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autofree Prefetch *prefetch = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (!reply) {
        MB_DEBUG ("GetEditMenu ahead: %s", error->message);
        return;
    }
    mb_heard_from_daemon ();
    MbField *field = mb_field_lookup (prefetch->serial);
    g_autoptr (GVariant) items = mb_layout_items (reply, "GetEditMenu ahead");
    if (field && items && field->generation == prefetch->generation) {
        g_clear_pointer (&field->prefetched, g_variant_unref);
        field->prefetched = g_steal_pointer (&items);
        field->prefetched_generation = prefetch->generation;
    }
}

static gboolean
prefetch_timeout (gpointer data)
{
    MbField *field = data;
    field->prefetch_id = 0;
    if (!mb_core.reads_ahead || field != mb_core.focused || !mb_core.owner || mb_core.stalled || !field->published ||
        field->dirty || field->timeout_id)
        return G_SOURCE_REMOVE;
    Prefetch *prefetch = g_new (Prefetch, 1);
    prefetch->serial = field->serial;
    prefetch->generation = field->generation;
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "GetEditMenu",
                            mb_edit_menu_args (field), G_VARIANT_TYPE ("(ua(ssa{sv}))"),
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, field->cancellable, prefetch_done,
                            prefetch);
    return G_SOURCE_REMOVE;
}

typedef struct {
    guint serial;
    MbEditMenuAnswer answer;
    gpointer data;
    GDestroyNotify free_data;
} EditMenuAsk;

static void
edit_menu_asked (GObject *source, GAsyncResult *result, gpointer data)
{
    EditMenuAsk *ask = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    MbField *field = mb_field_lookup (ask->serial);
    if (!reply) {
        MB_DEBUG ("GetEditMenu: %s", error->message);
    } else if (field) {
        mb_heard_from_daemon ();
        g_autoptr (GVariant) items = mb_layout_items (reply, "GetEditMenu");
        if (items)
            ask->answer (field, items, ask->data);
    }
    if (ask->free_data)
        ask->free_data (ask->data);
    g_free (ask);
}

/* Asks GetEditMenu for the field now: `answer` hears its items (checked)
 * while the field lives, never after an error; `free_data` frees `data`
 * in any case. */
void
mb_field_ask_edit_menu (MbField *field, MbEditMenuAnswer answer, gpointer data, GDestroyNotify free_data)
{
    EditMenuAsk *ask = g_new0 (EditMenuAsk, 1);
    ask->serial = field->serial;
    ask->answer = answer;
    ask->data = data;
    ask->free_data = free_data;
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "GetEditMenu",
                            mb_edit_menu_args (field), G_VARIANT_TYPE ("(ua(ssa{sv}))"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                            MB_CALL_TIMEOUT_MS, field->cancellable, edit_menu_asked, ask);
}

/* What menubusd knows of the field changed (or may have): the menu read
 * ahead is no longer it, and a new one is read once things stand still. */
void
mb_field_forget_menu (MbField *field, gboolean again)
{
    field->generation++;
    g_clear_pointer (&field->prefetched, g_variant_unref);
    if (field->prefetch_id) {
        g_source_remove (field->prefetch_id);
        field->prefetch_id = 0;
    }
    if (again)
        field->prefetch_id = g_timeout_add (MB_READ_AHEAD_MS, prefetch_timeout, field);
}

/* The edit menu read ahead, when nothing changed since. */
GVariant *
mb_field_menu_ahead (MbField *field)
{
    return field->prefetched && field->prefetched_generation == field->generation ? field->prefetched : NULL;
}

/* ---------- publishing and following ---------- */

static void
publish_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply)
        mb_heard_from_daemon ();
    else
        MB_DEBUG ("PublishContext: %s", error->message);
}

/* Only so many contexts stay published: the field focused longest ago
 * gives its up (it publishes again when focused). */
static void
bound_contexts (void)
{
    guint published = 0;
    MbField *oldest = NULL;
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init (&iter, mb_core.fields);
    while (g_hash_table_iter_next (&iter, NULL, &value)) {
        MbField *field = value;
        if (!field->published)
            continue;
        published++;
        if (!oldest || field->focused_at < oldest->focused_at)
            oldest = field;
    }
    if (published >= MB_MAX_CONTEXTS && oldest) {
        mb_call ("RemoveContext", g_variant_new ("(s)", oldest->context_id), FALSE);
        oldest->published = FALSE;
    }
}

static void
field_publish (MbField *field)
{
    if (!mb_core.bus)
        return;
    mb_ensure_registered ();
    if (!field->published)
        bound_contexts ();
    MbFieldFlags flags = field->ops->flags (field->widget);
    mb_field_forget_menu (field, FALSE);
    /* The first publish may start menubusd, like Register before it. */
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "PublishContext",
                            g_variant_new ("(s@a{sv}a(ssa{sv}))", field->context_id, context_dict (field, flags), NULL),
                            G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, MB_CALL_TIMEOUT_MS, NULL, publish_done,
                            NULL);
    field->published = TRUE;
    field->published_flags = flags;
}

static gboolean
flush_timeout (gpointer data)
{
    MbField *field = data;
    field->timeout_id = 0;
    mb_field_send (field, FALSE);
    return G_SOURCE_REMOVE;
}

/* menubusd lost the field's context or the app (a restart it missed): the
 * field is published again with its next update. */
void
mb_field_lost (MbField *field)
{
    field->published = FALSE;
    mb_forget_registration ();
}

static void
update_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    if (reply)
        mb_heard_from_daemon ();
    else
        MB_DEBUG ("UpdateSelection: %s", error->message);
    MbField *field = mb_field_lookup (GPOINTER_TO_UINT (data));
    if (!field)
        return;
    field->in_flight = FALSE;
    if (error) /* menubusd may not have it: the next menu sends it again */
        g_clear_pointer (&field->last_sent, g_variant_unref);
    if (reply)
        field->republished = FALSE;
    /* menubusd lost the context: it is published again with the update,
     * once; a menubusd that keeps losing it hears of it at the next change,
     * not every 16 ms. */
    if (mb_is_domain_error (error, MB_ERROR_NO_SUCH_CONTEXT) || mb_is_domain_error (error, MB_ERROR_NOT_REGISTERED)) {
        mb_field_lost (field);
        if (field == mb_core.focused && !field->republished) {
            field->republished = TRUE;
            field->dirty = TRUE;
        }
    }
    if (field->dirty && !field->timeout_id)
        field->timeout_id = g_timeout_add (MB_COALESCE_MS, flush_timeout, field);
}

/* Sends what changed; with `force`, even while a call is in flight (a
 * menu about to open needs the latest selection). */
void
mb_field_send (MbField *field, gboolean force)
{
    if (!mb_core.bus || !mb_core.owner)
        return;
    if (field->in_flight && !force)
        return;
    field->dirty = FALSE;
    if (!field->published || field->ops->flags (field->widget) != field->published_flags)
        field_publish (field);
    field->in_flight = TRUE;
    g_clear_pointer (&field->last_sent, g_variant_unref);
    field->last_sent = g_variant_ref_sink (selection_dict (field));
    mb_field_forget_menu (field, field == mb_core.focused);
    /* Not cancelled with the field: its answer only clears in_flight. */
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "UpdateSelection",
                            g_variant_new ("(s@a{sv})", field->context_id, field->last_sent), NULL,
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, NULL, update_done,
                            GUINT_TO_POINTER (field->serial));
}

/* Whether menubusd's idea of the field may differ from the field now. */
static gboolean
field_stale (MbField *field)
{
    if (field->dirty || field->timeout_id || !field->published || !field->last_sent ||
        field->ops->flags (field->widget) != field->published_flags)
        return TRUE;
    g_autoptr (GVariant) now = g_variant_ref_sink (selection_dict (field));
    return !g_variant_equal (now, field->last_sent);
}

/* The selection as it is now reaches menubusd before a menu is asked for
 * (messages of one connection arrive in order), unless menubusd has it. */
void
mb_field_catch_up (MbField *field)
{
    if (!field_stale (field))
        return;
    if (field->timeout_id) {
        g_source_remove (field->timeout_id);
        field->timeout_id = 0;
    }
    mb_field_send (field, TRUE);
}

void
mb_field_focused (MbField *field)
{
    mb_core.focused = field;
    field->has_focus = TRUE;
    field->focused_at = g_get_monotonic_time ();
    if (!mb_core.bus)
        return;
    if (!mb_core.owner) {
        /* Not running: publishing starts it when it is installed, and the
         * name watch then sends the selection. */
        if (!field->published)
            field_publish (field);
        return;
    }
    field->dirty = TRUE;
    if (field->timeout_id) {
        g_source_remove (field->timeout_id);
        field->timeout_id = 0;
    }
    mb_field_send (field, FALSE);
}

void
mb_field_blurred (MbField *field)
{
    if (!field->has_focus)
        return;
    field->has_focus = FALSE;
    mb_field_changed (field);
}

void
mb_field_changed (MbField *field)
{
    mb_bar_field_changed (field);
    if (!mb_core.owner)
        return;
    field->dirty = TRUE;
    if (!field->in_flight && !field->timeout_id)
        field->timeout_id = g_timeout_add (MB_COALESCE_MS, flush_timeout, field);
}

/* menubusd went: nothing of any field is known there any more. */
void
mb_fields_daemon_gone (void)
{
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init (&iter, mb_core.fields);
    while (g_hash_table_iter_next (&iter, NULL, &value)) {
        MbField *field = value;
        field->published = FALSE;
        field->in_flight = FALSE;
        mb_field_dismiss_bar (field);
        mb_field_forget_menu (field, FALSE);
        g_clear_pointer (&field->last_sent, g_variant_unref);
    }
}
