/* The GTK 4 library's clipboard following (gtk4-clipboard.c). */
#ifndef MENUBUS_GTK4_CLIPBOARD_H
#define MENUBUS_GTK4_CLIPBOARD_H

#include <gtk/gtk.h>

/* Follows the clipboard of the widget's display, once a display. */
G_GNUC_INTERNAL void gtk4_follow_clipboard (GtkWidget *widget);

#endif
