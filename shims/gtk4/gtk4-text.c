/* GTK 4's text widgets as the library changes them (gtk4-text.h). */
#include "gtk4-text.h"

#include "menubus-text-buffer.h"

MbFieldFlags
gtk4_field_flags (gpointer data)
{
    GtkWidget *widget = data;
    MbFieldFlags flags = 0;
    if (GTK_IS_TEXT_VIEW (widget)) {
        if (gtk_text_view_get_editable (GTK_TEXT_VIEW (widget)))
            flags |= MB_FIELD_EDITABLE;
        if (gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget))) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    } else if (GTK_IS_TEXT (widget)) {
        if (gtk_editable_get_editable (GTK_EDITABLE (widget)))
            flags |= MB_FIELD_EDITABLE;
        if (gtk_text_get_text_length (GTK_TEXT (widget)) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    }
    /* Never MB_FIELD_MENUBUS_UNDO: GTK 4's text widgets have their own undo. */
    return flags;
}

void
gtk4_field_selection (gpointer data, MbSelection *out)
{
    GtkWidget *widget = data;
    gint start = 0, end = 0, total = 0;
    out->kind = MB_SELECTION_NONE;
    if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter a, b;
        gtk_text_buffer_get_selection_bounds (buffer, &a, &b);
        start = gtk_text_iter_get_offset (&a);
        end = gtk_text_iter_get_offset (&b);
        total = gtk_text_buffer_get_char_count (buffer);
    } else if (GTK_IS_TEXT (widget)) {
        if (!gtk_editable_get_selection_bounds (GTK_EDITABLE (widget), &start, &end))
            start = end = gtk_editable_get_position (GTK_EDITABLE (widget));
        total = gtk_text_get_text_length (GTK_TEXT (widget));
    } else {
        return;
    }
    if (start > end) {
        gint t = start;
        start = end;
        end = t;
    }
    if (start == end) {
        out->kind = MB_SELECTION_CARET;
        return;
    }
    out->kind = start == 0 && end == total ? MB_SELECTION_ALL : MB_SELECTION_RANGE;
    out->length = (guint) (end - start);
    /* menubusd takes at most 65536 bytes: longer selections go without text. */
    if (out->length > 65536)
        return;
    if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter a, b;
        gtk_text_buffer_get_iter_at_offset (buffer, &a, start);
        gtk_text_buffer_get_iter_at_offset (buffer, &b, end);
        out->text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
    } else {
        out->text = gtk_editable_get_chars (GTK_EDITABLE (widget), start, end);
    }
}

/* Replaces the selection with `text` and selects what was put in. */
void
gtk4_replace_selection (GtkWidget *widget, const gchar *text)
{
    glong length = g_utf8_strlen (text, -1);
    if (GTK_IS_TEXT_VIEW (widget)) {
        /* One user action: one step of GTK's own undo. */
        mb_text_buffer_replace_selection (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget)), text);
    } else if (GTK_IS_TEXT (widget)) {
        GtkEditable *editable = GTK_EDITABLE (widget);
        gint start, end;
        if (!gtk_editable_get_selection_bounds (editable, &start, &end))
            start = end = gtk_editable_get_position (editable);
        gtk_editable_delete_text (editable, start, end);
        gint at = start;
        gtk_editable_insert_text (editable, text, -1, &at);
        gtk_editable_select_region (editable, start, start + (gint) length);
    }
}

void
gtk4_set_extra_menu (GtkWidget *widget, GMenuModel *model)
{
    if (GTK_IS_TEXT_VIEW (widget))
        gtk_text_view_set_extra_menu (GTK_TEXT_VIEW (widget), model);
    else
        gtk_text_set_extra_menu (GTK_TEXT (widget), model);
}

GMenuModel *
gtk4_get_extra_menu (GtkWidget *widget)
{
    if (GTK_IS_TEXT_VIEW (widget))
        return gtk_text_view_get_extra_menu (GTK_TEXT_VIEW (widget));
    return gtk_text_get_extra_menu (GTK_TEXT (widget));
}
