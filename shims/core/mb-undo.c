/* Undo for fields that have none of their own (MB_FIELD_MENUBUS_UNDO):
 * typing and actions become menubusd's undo steps, whose payloads are the
 * edits to apply; Undo and Redo apply what menubusd gives back, which is
 * checked before anything reaches the field. */
#include "menubus-core.h"

#include <string.h>

void
mb_clear_edits (GArray *edits)
{
    for (guint i = 0; i < edits->len; i++)
        g_free (g_array_index (edits, MbEdit, i).text);
    g_array_set_size (edits, 0);
}

/* A payload is the edits to apply, each: 'i' or 'd', the offset and the
 * text's byte length as little-endian 32-bit numbers, then the text. */
static GVariant *
encode_edits (const MbEdit *edits, guint n, gboolean inverse)
{
    GByteArray *bytes = g_byte_array_new ();
    for (guint k = 0; k < n; k++) {
        const MbEdit *edit = inverse ? &edits[n - 1 - k] : &edits[k];
        guint8 op = (edit->insert != inverse) ? 'i' : 'd';
        guint32 offset = GUINT32_TO_LE (edit->offset);
        guint32 length = GUINT32_TO_LE ((guint32) strlen (edit->text));
        g_byte_array_append (bytes, &op, 1);
        g_byte_array_append (bytes, (const guint8 *) &offset, 4);
        g_byte_array_append (bytes, (const guint8 *) &length, 4);
        g_byte_array_append (bytes, (const guint8 *) edit->text, strlen (edit->text));
    }
    g_autoptr (GBytes) data = g_byte_array_free_to_bytes (bytes);
    return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, data, TRUE);
}

/* The edits of one payload, or FALSE when it is not one of ours. */
static gboolean
decode_edits (GVariant *payload, GArray *out)
{
    gsize size = 0;
    const guint8 *data = g_variant_get_fixed_array (payload, &size, 1);
    gsize at = 0;
    while (at < size) {
        if (size - at < 9 || (data[at] != 'i' && data[at] != 'd'))
            return FALSE;
        guint32 offset, length;
        memcpy (&offset, data + at + 1, 4);
        memcpy (&length, data + at + 5, 4);
        offset = GUINT32_FROM_LE (offset);
        length = GUINT32_FROM_LE (length);
        /* Any process may own menubusd's name: an offset no text has is refused. */
        if (length > size - at - 9 || offset > G_MAXINT32 / 2 ||
            !g_utf8_validate ((const gchar *) data + at + 9, length, NULL))
            return FALSE;
        MbEdit edit = { data[at] == 'i', offset, g_strndup ((const gchar *) data + at + 9, length) };
        g_array_append_val (out, edit);
        at += 9 + length;
    }
    return TRUE;
}

static void
register_step (MbField *field, const gchar *name, const MbEdit *edits, guint n, const gchar *merge_key)
{
    if (!mb_core.bus || n == 0)
        return;
    mb_ensure_registered ();
    GVariantBuilder options;
    g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
    if (merge_key)
        g_variant_builder_add (&options, "{sv}", "merge-key", g_variant_new_string (merge_key));
    field->has_history = TRUE;
    mb_field_forget_menu (field, field == mb_core.focused);
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, "RegisterUndo",
                            g_variant_new ("(ss@ay@aya{sv})", field->document_id, name, encode_edits (edits, n, TRUE),
                                           encode_edits (edits, n, FALSE), &options),
                            G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, NULL, mb_call_done,
                            "RegisterUndo");
}

void
mb_field_record (MbField *field, const MbEdit *edit)
{
    if (field->applying || !edit->text || !*edit->text)
        return;
    field->edits++;
    if (field->action_depth > 0) {
        MbEdit copy = { edit->insert, edit->offset, g_strdup (edit->text) };
        g_array_append_val (field->action_edits, copy);
        return;
    }
    glong chars = g_utf8_strlen (edit->text, -1);
    /* Typing merges while each edit starts where the last one left the
     * caret (backspace and delete included); a jump or a longer insertion
     * (a paste, an input method's commit) starts a step of its own. */
    gboolean follows = field->run_end >= 0 &&
                       (edit->offset == field->run_end || (!edit->insert && edit->offset + chars == field->run_end));
    if (!follows || chars > 1)
        field->run++;
    field->run_end = edit->insert ? edit->offset + chars : edit->offset;
    g_autofree gchar *key = g_strdup_printf ("typing-%u", field->run);
    register_step (field, "Typing", edit, 1, key);
    if (chars > 1)
        field->run++;
}

void
mb_field_begin_action (MbField *field, const gchar *name)
{
    if (field->action_depth++ == 0) {
        g_free (field->action_name);
        field->action_name = g_strdup (name);
        mb_clear_edits (field->action_edits);
    }
}

void
mb_field_end_action (MbField *field)
{
    if (field->action_depth == 0 || --field->action_depth > 0)
        return;
    field->run++;
    field->run_end = -1;
    register_step (field, field->action_name ? field->action_name : "Typing",
                   (const MbEdit *) field->action_edits->data, field->action_edits->len, NULL);
    mb_clear_edits (field->action_edits);
}

gboolean
mb_field_is_applying (MbField *field)
{
    return field->applying;
}

/* An Undo or Redo asked for: the field, and its edits when it was asked. */
typedef struct {
    guint serial;
    guint edits;
} Move;

static void
move_done (GObject *source, GAsyncResult *result, gpointer data)
{
    g_autofree Move *move = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
    MbField *field = mb_field_lookup (move->serial);
    if (!reply) {
        MB_DEBUG ("Undo/Redo: %s", error->message);
        return;
    }
    mb_heard_from_daemon ();
    if (!field)
        return;
    if (field->edits != move->edits) {
        /* The user typed while menubusd answered (a stalled menubusd):
         * the answer's offsets are of a text that is gone. The step is
         * not applied; the user's text is kept, that step of the history
         * is not. */
        MB_DEBUG ("Undo/Redo of %s came after an edit: not applied", field->document_id);
        return;
    }
    g_autoptr (GVariant) payloads = g_variant_get_child_value (reply, 1);
    g_autoptr (GArray) edits = g_array_new (FALSE, TRUE, sizeof (MbEdit));
    for (gsize i = 0; i < g_variant_n_children (payloads); i++) {
        g_autoptr (GVariant) payload = g_variant_get_child_value (payloads, i);
        if (!decode_edits (payload, edits)) {
            MB_DEBUG ("Undo/Redo: a payload of %s is not the shim's", field->document_id);
            mb_clear_edits (edits);
            return;
        }
    }
    field->applying = TRUE;
    field->ops->apply (field->widget, (const MbEdit *) edits->data, edits->len);
    field->applying = FALSE;
    mb_clear_edits (edits);
    field->run++;
    field->run_end = -1;
    mb_field_changed (field);
}

static void
move (MbField *field, const gchar *method)
{
    if (!mb_core.bus || !mb_core.owner)
        return;
    field->run++;
    field->run_end = -1;
    mb_field_forget_menu (field, field == mb_core.focused);
    Move *asked = g_new (Move, 1);
    asked->serial = field->serial;
    asked->edits = field->edits;
    g_dbus_connection_call (mb_core.bus, MB_BUS_NAME, MB_MANAGER_PATH, MB_MANAGER_IFACE, method,
                            g_variant_new ("(s)", field->document_id), G_VARIANT_TYPE ("(saay)"),
                            G_DBUS_CALL_FLAGS_NO_AUTO_START, MB_CALL_TIMEOUT_MS, field->cancellable, move_done, asked);
}

void
mb_field_undo (MbField *field)
{
    move (field, "Undo");
}

void
mb_field_redo (MbField *field)
{
    move (field, "Redo");
}

