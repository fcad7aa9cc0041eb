/* What the GTK 4 library does alike to a GtkTextView and a GtkText
 * (gtk4-text.c). */
#ifndef MENUBUS_GTK4_TEXT_H
#define MENUBUS_GTK4_TEXT_H

#include <gtk/gtk.h>

#include "menubus-shim.h"

/* A GtkTextView's or GtkText's flags and selection (MbFieldOps). */
G_GNUC_INTERNAL MbFieldFlags gtk4_field_flags (gpointer widget);
G_GNUC_INTERNAL void gtk4_field_selection (gpointer widget, MbSelection *out);

/* Replaces the selection with `text` and selects what was put in; in a
 * GtkTextView one user action (one step of GTK's own undo). */
G_GNUC_INTERNAL void gtk4_replace_selection (GtkWidget *widget, const gchar *text);
/* The widget's extra-menu property. */
G_GNUC_INTERNAL void gtk4_set_extra_menu (GtkWidget *widget, GMenuModel *model);
G_GNUC_INTERNAL GMenuModel *gtk4_get_extra_menu (GtkWidget *widget);

#endif
