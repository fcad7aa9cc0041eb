/* The shim core's tests' common parts: see test-support.h. */
#include "test-support.h"

#include <string.h>


/* ---------- the fake widget ---------- */

static MbFieldFlags
widget_flags (gpointer data)
{
    TestWidget *widget = data;
    return widget->flags | (widget->text->len ? MB_FIELD_HAS_CONTENT : 0);
}

static guint
widget_length (TestWidget *widget)
{
    return (guint) g_utf8_strlen (widget->text->str, -1);
}

static gsize
byte_at (TestWidget *widget, guint offset)
{
    offset = MIN (offset, widget_length (widget));
    return (gsize) (g_utf8_offset_to_pointer (widget->text->str, offset) - widget->text->str);
}

static void
widget_selection (gpointer data, MbSelection *out)
{
    TestWidget *widget = data;
    out->length = widget->end - widget->start;
    if (widget->start == widget->end)
        out->kind = MB_SELECTION_CARET;
    else if (widget->start == 0 && widget->end == widget_length (widget))
        out->kind = MB_SELECTION_ALL;
    else
        out->kind = MB_SELECTION_RANGE;
    gsize from = byte_at (widget, widget->start), to = byte_at (widget, widget->end);
    out->text = from < to ? g_strndup (widget->text->str + from, to - from) : NULL;
}

static void
widget_perform (gpointer data, const gchar *command, const gchar *text, const gchar *undo_name)
{
    TestWidget *widget = data;
    widget->performed++;
    g_free (widget->command);
    widget->command = g_strdup (command);
}

/* As a toolkit applies undo: each edit goes in, and the field's own
 * change signals record it (which the core must not, while applying). */
static void
widget_apply (gpointer data, const MbEdit *edits, guint n_edits)
{
    TestWidget *widget = data;
    widget->applied++;
    g_assert_true (mb_field_is_applying (widget->field));
    for (guint i = 0; i < n_edits; i++) {
        const MbEdit *edit = &edits[i];
        gsize at = byte_at (widget, edit->offset);
        if (edit->insert) {
            g_string_insert (widget->text, (gssize) at, edit->text);
        } else {
            gsize length = strlen (edit->text);
            if (strncmp (widget->text->str + at, edit->text, length) != 0) {
                widget->mismatches++;
                continue;
            }
            g_string_erase (widget->text, (gssize) at, (gssize) length);
        }
        mb_field_record (widget->field, edit);
        widget->start = widget->end = MIN (edit->offset + (edit->insert ? g_utf8_strlen (edit->text, -1) : 0),
                                           widget_length (widget));
    }
}

static gboolean
widget_show_menu (gpointer data, guint32 timestamp)
{
    TestWidget *widget = data;
    widget->menus_shown++;
    widget->shown_at = timestamp;
    return TRUE;
}

static void
widget_show_bar (gpointer data, GVariant *items)
{
    TestWidget *widget = data;
    widget->bars_shown++;
    g_clear_pointer (&widget->bar, g_variant_unref);
    widget->bar = g_variant_ref (items);
}

static void
widget_hide_bar (gpointer data)
{
    TestWidget *widget = data;
    widget->bars_hidden++;
    g_clear_pointer (&widget->bar, g_variant_unref);
}

const MbFieldOps test_widget_ops = { widget_flags,     widget_selection, widget_perform, widget_apply,
                                     widget_show_menu, widget_show_bar,  widget_hide_bar };

TestWidget *
test_widget_new (MbFieldFlags flags, const gchar *text)
{
    TestWidget *widget = g_new0 (TestWidget, 1);
    widget->text = g_string_new (text);
    widget->start = widget->end = widget_length (widget);
    widget->flags = flags;
    widget->field = mb_field_new (widget, &test_widget_ops);
    return widget;
}

void
test_widget_free (TestWidget *widget)
{
    mb_field_free (widget->field);
    g_string_free (widget->text, TRUE);
    g_free (widget->command);
    g_clear_pointer (&widget->bar, g_variant_unref);
    g_free (widget);
}

void
test_widget_select (TestWidget *widget, guint start, guint end)
{
    widget->start = MIN (start, widget_length (widget));
    widget->end = MIN (MAX (end, widget->start), widget_length (widget));
    mb_field_changed (widget->field);
}

void
test_widget_type (TestWidget *widget, const gchar *text)
{
    for (const gchar *c = text; *c; c = g_utf8_next_char (c)) {
        g_autofree gchar *one = g_strndup (c, (gsize) (g_utf8_next_char (c) - c));
        guint caret = widget->end;
        g_string_insert (widget->text, (gssize) byte_at (widget, caret), one);
        MbEdit edit = { TRUE, caret, one };
        mb_field_record (widget->field, &edit);
        widget->start = widget->end = caret + 1;
        mb_field_changed (widget->field);
    }
}

void
test_widget_replace_all (TestWidget *widget, const gchar *name, const gchar *text)
{
    g_autofree gchar *old = g_strdup (widget->text->str);
    mb_field_begin_action (widget->field, name);
    g_string_truncate (widget->text, 0);
    MbEdit deletion = { FALSE, 0, old };
    mb_field_record (widget->field, &deletion);
    g_string_append (widget->text, text);
    MbEdit insertion = { TRUE, 0, (gchar *) text };
    mb_field_record (widget->field, &insertion);
    mb_field_end_action (widget->field);
    widget->start = widget->end = widget_length (widget);
    mb_field_changed (widget->field);
}

GBytes *
undo_payload (gchar op, guint32 offset, const gchar *text, gsize length)
{
    GByteArray *bytes = g_byte_array_new ();
    guint32 le_offset = GUINT32_TO_LE (offset), le_length = GUINT32_TO_LE ((guint32) length);
    g_byte_array_append (bytes, (const guint8 *) &op, 1);
    g_byte_array_append (bytes, (const guint8 *) &le_offset, 4);
    g_byte_array_append (bytes, (const guint8 *) &le_length, 4);
    g_byte_array_append (bytes, (const guint8 *) text, (guint) MIN (length, strlen (text)));
    return g_byte_array_free_to_bytes (bytes);
}

GVariant *
undo_reply (GBytes *const *payloads, guint n)
{
    GVariantBuilder builder;
    g_variant_builder_init (&builder, G_VARIANT_TYPE ("aay"));
    for (guint i = 0; i < n; i++)
        g_variant_builder_add_value (&builder, g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, payloads[i], TRUE));
    return g_variant_new ("(s@aay)", "Typing", g_variant_builder_end (&builder));
}

/* ---------- menus ---------- */

void
menu_log_changed (MbMenu *menu, GVariant *items, gpointer data)
{
    MenuLog *log = data;
    log->calls++;
    if (log->closed)
        log->after_close++;
    if (!items) {
        log->nulls++;
    } else if (!items_valid (items)) {
        log->wrong_types++;
    } else {
        g_clear_pointer (&log->last, g_variant_unref);
        log->last = g_variant_ref (items);
        GVariantIter iter;
        const gchar *id;
        g_variant_iter_init (&iter, items);
        while (g_variant_iter_next (&iter, "(&s&s@a{sv})", &id, NULL, NULL))
            g_string_append_printf (log->ids, "%s\n", id);
    }
}

static gboolean
strings_within (GVariant *value)
{
    if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) || g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH))
        return g_variant_get_size (value) <= MB_MAX_STRING_BYTES + 1;
    if (!g_variant_is_container (value))
        return TRUE;
    gsize n = g_variant_n_children (value);
    for (gsize i = 0; i < n; i++) {
        g_autoptr (GVariant) child = g_variant_get_child_value (value, i);
        if (!strings_within (child))
            return FALSE;
    }
    return TRUE;
}

gboolean
items_valid (GVariant *items)
{
    if (!g_variant_is_of_type (items, G_VARIANT_TYPE ("a(ssa{sv})")) ||
        g_variant_n_children (items) > MB_MAX_ELEMENTS || !strings_within (items))
        return FALSE;
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    GVariantIter iter;
    const gchar *id, *parent;
    g_variant_iter_init (&iter, items);
    while (g_variant_iter_next (&iter, "(&s&s@a{sv})", &id, &parent, NULL)) {
        if (!*id || g_hash_table_contains (seen, id) || (*parent && !g_hash_table_contains (seen, parent)))
            return FALSE;
        g_hash_table_add (seen, (gpointer) id);
    }
    return TRUE;
}

gboolean
items_have (GVariant *items, const gchar *id)
{
    if (!items || !g_variant_is_of_type (items, G_VARIANT_TYPE ("a(ssa{sv})")))
        return FALSE;
    GVariantIter iter;
    const gchar *element;
    g_variant_iter_init (&iter, items);
    while (g_variant_iter_next (&iter, "(&s&s@a{sv})", &element, NULL, NULL))
        if (g_strcmp0 (element, id) == 0)
            return TRUE;
    return FALSE;
}

gchar *
context_item (TestWidget *widget)
{
    return g_strconcat ("ctx:", mb_field_context_id (widget->field), NULL);
}

MenuLog *
fixture_present (Fixture *fixture, TestWidget *widget, GVariant **items)
{
    MenuLog *log = g_new0 (MenuLog, 1);
    log->ids = g_string_new (NULL);
    g_ptr_array_add (fixture->menus, log);
    GVariant *shown = NULL;
    log->menu = mb_menu_present (widget->field, menu_log_changed, log, &shown);
    if (shown)
        g_assert_true (items_valid (shown));
    if (items)
        *items = shown;
    else if (shown)
        g_variant_unref (shown);
    return log;
}

void
menu_log_close (MenuLog *log)
{
    if (log->closed)
        return;
    log->closed = TRUE;
    mb_menu_close (log->menu);
}

void
assert_menu_shows_items (Fixture *fixture, TestWidget *widget)
{
    g_autofree gchar *mine = context_item (widget);
    GVariant *items = NULL;
    MenuLog *log = fixture_present (fixture, widget, &items);
    g_assert_nonnull (log->menu);
    gboolean at_once = items_have (items, mine);
    g_clear_pointer (&items, g_variant_unref);
    if (!at_once)
        WAIT_FOR (items_have (log->last, mine), 5000);
    g_assert_cmpuint (log->wrong_types, ==, 0);
    menu_log_close (log);
}

void
assert_widget_untouched (TestWidget *widget, const gchar *text)
{
    g_assert_cmpuint (widget->performed, ==, 0);
    g_assert_cmpuint (widget->applied, ==, 0);
    g_assert_cmpstr (widget->text->str, ==, text);
}

static void
menu_log_free (gpointer data)
{
    MenuLog *log = data;
    g_clear_pointer (&log->last, g_variant_unref);
    g_string_free (log->ids, TRUE);
    g_free (log);
}

/* ---------- the fixture ---------- */

guint daemon_ups, daemon_downs;

static void
daemon_changed (gboolean running, gpointer data)
{
    if (running)
        daemon_ups++;
    else
        daemon_downs++;
}

void
fixture_set_up (Fixture *fixture, gconstpointer data)
{
    static gboolean on;
    if (!on) {
        on = TRUE;
        g_assert_true (mb_shim_enabled ("test"));
        mb_shim_watch_daemon (daemon_changed, NULL);
        WAIT_FOR (mb_shim_connection () != NULL, 5000);
    }
    fixture->widgets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_widget_free);
    fixture->menus = g_ptr_array_new_with_free_func (menu_log_free);
    fixture->fake = fake_daemon_new (FALSE);
    WAIT_FOR (g_strcmp0 (mb_shim_daemon (), fake_daemon_name (fixture->fake)) == 0, 5000);
}

void
fixture_tear_down (Fixture *fixture, gconstpointer data)
{
    for (guint i = 0; i < fixture->menus->len; i++)
        menu_log_close (fixture->menus->pdata[i]);
    g_ptr_array_unref (fixture->widgets);
    fake_daemon_free (fixture->fake);
    WAIT_FOR (mb_shim_daemon () == NULL, 5000);
    /* Nothing the core still does reaches a log after its menu closed. */
    for (guint i = 0; i < fixture->menus->len; i++)
        g_assert_cmpuint (((MenuLog *) fixture->menus->pdata[i])->after_close, ==, 0);
    g_ptr_array_unref (fixture->menus);
}

TestWidget *
fixture_widget (Fixture *fixture, MbFieldFlags flags, const gchar *text)
{
    TestWidget *widget = test_widget_new (flags, text);
    g_ptr_array_add (fixture->widgets, widget);
    return widget;
}

TestWidget *
fixture_focused_widget (Fixture *fixture, MbFieldFlags flags, const gchar *text)
{
    TestWidget *widget = fixture_widget (fixture, flags, text);
    mb_field_focused (widget->field);
    const gchar *context = mb_field_context_id (widget->field);
    WAIT_FOR (fake_has_context (fixture->fake, context) && fake_selection (fixture->fake, context), 5000);
    return widget;
}

/* ---------- the main loop and the bus ---------- */

static gboolean
woken (gpointer data)
{
    *(gboolean *) data = TRUE;
    return G_SOURCE_REMOVE;
}

void
loop_step (gint64 deadline)
{
    gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0)
        return;
    gboolean fired = FALSE;
    guint timer = g_timeout_add ((guint) MIN (left / 1000 + 1, 50), woken, &fired);
    g_main_context_iteration (NULL, TRUE);
    if (!fired)
        g_source_remove (timer);
}

void
loop_for (guint ms)
{
    gint64 deadline = g_get_monotonic_time () + (gint64) ms * 1000;
    while (g_get_monotonic_time () < deadline)
        loop_step (deadline);
}

typedef struct {
    gboolean done;
    GVariant *reply;
    GError *error;
} Wait;

static void
call_done (GObject *source, GAsyncResult *result, gpointer data)
{
    Wait *wait = data;
    wait->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &wait->error);
    wait->done = TRUE;
}

GVariant *
call_core (GDBusConnection *from, const gchar *method, GVariant *args, GError **error)
{
    g_assert_nonnull (mb_shim_connection ());
    Wait wait = { 0 };
    g_dbus_connection_call (from, g_dbus_connection_get_unique_name (mb_shim_connection ()), MB_SHIM_CLIENT_PATH,
                            MB_CLIENT_IFACE, method, args, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, call_done,
                            &wait);
    WAIT_FOR (wait.done, 6000);
    if (wait.error)
        g_propagate_error (error, wait.error);
    return wait.reply;
}

void
core_barrier (FakeDaemon *fake)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) reply = call_core (fake_daemon_connection (fake), "GetSelectedText",
                                            g_variant_new ("(s)", "no-such-context"), &error);
    g_assert_null (reply);
    g_assert_nonnull (error);
}

void
core_settle (FakeDaemon *fake)
{
    for (guint round = 0; round < 20; round++) {
        guint before = fake_all_calls (fake);
        /* Past the 16 ms that selection changes gather for. */
        loop_for (25);
        core_barrier (fake);
        if (fake_all_calls (fake) == before)
            return;
    }
    g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, "the core kept calling for 20 round trips");
}
