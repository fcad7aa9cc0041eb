/* What the GTK 3 module and the GTK 4 library do alike to a GtkTextBuffer,
 * whose API is the same in both: included by each, built against its own
 * GTK. (The rest of shims/core knows GLib and GIO only.) */
#ifndef MENUBUS_TEXT_BUFFER_H
#define MENUBUS_TEXT_BUFFER_H

#include <gtk/gtk.h>

/* Replaces the selection with `text` and selects what was put in, as one
 * user action: one step of the buffer's own undo. */
static inline void
mb_text_buffer_replace_selection (GtkTextBuffer *buffer, const gchar *text)
{
    glong length = g_utf8_strlen (text, -1);
    GtkTextIter a, b;
    gtk_text_buffer_begin_user_action (buffer);
    gtk_text_buffer_get_selection_bounds (buffer, &a, &b);
    gint start = gtk_text_iter_get_offset (&a);
    gtk_text_buffer_delete (buffer, &a, &b);
    gtk_text_buffer_insert (buffer, &a, text, -1);
    gtk_text_buffer_get_iter_at_offset (buffer, &a, start);
    gtk_text_buffer_get_iter_at_offset (buffer, &b, start + (gint) length);
    gtk_text_buffer_select_range (buffer, &b, &a);
    gtk_text_buffer_end_user_action (buffer);
}

#endif
