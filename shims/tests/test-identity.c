/* Identity, not addresses: a field freed while its calls are out, and a
 * new field made after (at the same address when the allocator gives it
 * back): the late answers reach nothing of the new field. */
#include "test-support.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* glibc's cache of freed chunks of `size`, which calloc (g_new0) does not
 * take from, made full: the next chunk of that size freed goes to the
 * arena, where calloc finds it. */
static void
fill_cache (gsize size)
{
    gpointer fill[8];
    for (guint i = 0; i < G_N_ELEMENTS (fill); i++)
        fill[i] = malloc (size);
    for (guint i = 0; i < G_N_ELEMENTS (fill); i++)
        free (fill[i]);
}

/* Frees `old` and makes a new widget whose field is at the old field's
 * address when the allocator gives it back (glibc does; AddressSanitizer
 * keeps freed memory aside): the check holds for either. The chunk freed
 * may have merged with its free neighbours: chunks of its size are taken
 * until one is at its address, and that one is freed for the new field. */
static TestWidget *
replace_widget (Fixture *f, TestWidget *old, MbFieldFlags flags, const gchar *text)
{
    gpointer address = old->field;
    gsize size = malloc_usable_size (address);
    fill_cache (size);
    test_widget_free (old);
    g_autoptr (GPtrArray) probes = g_ptr_array_new_with_free_func (free);
    gpointer hit = NULL;
    for (guint i = 0; i < 512 && !hit; i++) {
        gpointer probe = calloc (1, size);
        if (probe == address)
            hit = probe;
        else
            g_ptr_array_add (probes, probe);
    }
    if (hit) {
        fill_cache (size);
        free (hit);
    }
    TestWidget *fresh = test_widget_new (flags, text);
    g_test_message ("the new field is %sat the freed field's address", (gpointer) fresh->field == address ? "" : "not ");
    g_ptr_array_add (f->widgets, fresh);
    return fresh;
}

static TestWidget *
focused (Fixture *f, MbFieldFlags flags, const gchar *text)
{
    TestWidget *widget = test_widget_new (flags, text);
    mb_field_focused (widget->field);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (widget->field)), 5000);
    return widget;
}

/* Undo asked for, the field freed before the answer: the answer (edits
 * the new field could take) is applied nowhere. */
static void
test_late_undo (Fixture *f, gconstpointer data)
{
    MbFieldFlags flags = MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO;
    TestWidget *old = focused (f, flags, "");
    test_widget_type (old, "abc");
    WAIT_FOR (fake_calls (f->fake, "RegisterUndo") == 3, 5000);
    fake_hold (f->fake, "Undo");
    mb_field_undo (old->field);
    WAIT_FOR (fake_held (f->fake, "Undo") == 1, 5000);
    TestWidget *fresh = replace_widget (f, old, flags, "abc");
    mb_field_focused (fresh->field);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (fresh->field)), 5000);
    g_autoptr (GBytes) deletion = undo_payload ('d', 0, "abc", 3);
    fake_reply_body (f->fake, "Undo", undo_reply (&deletion, 1));
    fake_release (f->fake, "Undo");
    core_settle (f->fake);
    assert_widget_untouched (fresh, "abc");
}

/* A menu opened and closed, its field freed, while GetEditMenu and
 * PresentMenu are out; a new field opens a menu: the old presentation's
 * items never reach the new menu, and the old presentation ends. */
static void
test_late_menu (Fixture *f, gconstpointer data)
{
    TestWidget *old = focused (f, MB_FIELD_EDITABLE, "hello world");
    g_autofree gchar *old_item = context_item (old);
    const gchar *methods[] = { "GetEditMenu", "PresentMenu", "GetLayout", "RemoveContext" };
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
        fake_hold (f->fake, methods[i]);
    MenuLog *old_log = fixture_present (f, old, NULL);
    WAIT_FOR (fake_held (f->fake, "GetEditMenu") + fake_held (f->fake, "PresentMenu") >= 1, 5000);
    menu_log_close (old_log);
    TestWidget *fresh = replace_widget (f, old, MB_FIELD_EDITABLE, "hello world");
    g_autofree gchar *fresh_item = context_item (fresh);
    mb_field_focused (fresh->field);
    WAIT_FOR (fake_has_context (f->fake, mb_field_context_id (fresh->field)), 5000);
    MenuLog *fresh_log = fixture_present (f, fresh, NULL);
    /* The old field's calls first, as they came; its context goes last. */
    for (guint i = 0; i < G_N_ELEMENTS (methods); i++) {
        fake_answer (f->fake, methods[i]);
        fake_release (f->fake, methods[i]);
        core_settle (f->fake);
    }
    WAIT_FOR (items_have (fresh_log->last, fresh_item), 5000);
    core_settle (f->fake);
    g_assert_null (strstr (fresh_log->ids->str, old_item));
    g_assert_cmpuint (fresh_log->wrong_types, ==, 0);
    g_assert_cmpuint (old_log->after_close, ==, 0);
    for (guint i = 0; i < fake_menus (f->fake); i++)
        if (g_strcmp0 (fake_menu_context (f->fake, i), mb_field_context_id (fresh->field)) != 0)
            g_assert_true (fake_menu_closed (f->fake, i));
    assert_widget_untouched (fresh, "hello world");
    menu_log_close (fresh_log);
}

/* An update out when its field is freed, answered NoSuchContext after a
 * new field is published: the new field is not taken for the old one (no
 * publishing again, no registering again). */
static void
test_late_update (Fixture *f, gconstpointer data)
{
    TestWidget *old = focused (f, MB_FIELD_EDITABLE, "hello world");
    core_settle (f->fake);
    fake_hold (f->fake, "UpdateSelection");
    test_widget_select (old, 0, 5);
    WAIT_FOR (fake_held (f->fake, "UpdateSelection") == 1, 5000);
    TestWidget *fresh = replace_widget (f, old, MB_FIELD_EDITABLE, "hello world");
    mb_field_focused (fresh->field);
    WAIT_FOR (fake_held (f->fake, "UpdateSelection") == 2, 5000);
    core_settle (f->fake);
    guint published = fake_calls (f->fake, "PublishContext"), registered = fake_calls (f->fake, "Register");
    fake_error (f->fake, "UpdateSelection", MB_ERROR_NO_SUCH_CONTEXT);
    g_assert_true (fake_release_one (f->fake, "UpdateSelection"));
    core_settle (f->fake);
    g_assert_cmpuint (fake_calls (f->fake, "PublishContext"), ==, published);
    g_assert_cmpuint (fake_calls (f->fake, "Register"), ==, registered);
    fake_answer (f->fake, "UpdateSelection");
    fake_release (f->fake, "UpdateSelection");
    core_settle (f->fake);
    assert_widget_untouched (fresh, "hello world");
    assert_menu_shows_items (f, fresh);
}

void
add_identity_tests (void)
{
    g_test_add ("/identity/late-undo-reaches-no-new-field", Fixture, NULL, fixture_set_up, test_late_undo,
                fixture_tear_down);
    g_test_add ("/identity/late-menu-reaches-no-new-field", Fixture, NULL, fixture_set_up, test_late_menu,
                fixture_tear_down);
    g_test_add ("/identity/late-update-reaches-no-new-field", Fixture, NULL, fixture_set_up, test_late_update,
                fixture_tear_down);
}
