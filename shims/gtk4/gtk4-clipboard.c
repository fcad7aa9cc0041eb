/* What the clipboard offers, followed for the shim core: its MIME types
 * reach menubusd with the focused field's next update (Paste or not). */
#include "gtk4-clipboard.h"

#include <string.h>

#include "menubus-shim.h"

static void
clipboard_formats_changed (GdkClipboard *clipboard)
{
    GdkContentFormats *formats = gdk_clipboard_get_formats (clipboard);
    g_autoptr (GPtrArray) types = g_ptr_array_new ();
    gsize n = 0;
    const gchar *const *mimes = formats ? gdk_content_formats_get_mime_types (formats, &n) : NULL;
    gboolean text = formats && gdk_content_formats_contain_gtype (formats, G_TYPE_STRING);
    for (gsize i = 0; i < n; i++)
        if (g_str_has_prefix (mimes[i], "text/plain"))
            text = TRUE;
    if (text)
        g_ptr_array_add (types, (gpointer) "text/plain");
    /* MIME types as offered, beyond text/plain. */
    for (gsize i = 0; i < n && types->len < 32; i++)
        if (!g_str_has_prefix (mimes[i], "text/plain") && strchr (mimes[i], '/'))
            g_ptr_array_add (types, (gpointer) mimes[i]);
    g_ptr_array_add (types, NULL);
    mb_shim_set_clipboard_types ((const gchar *const *) types->pdata);
}

void
gtk4_follow_clipboard (GtkWidget *widget)
{
    GdkClipboard *clipboard = gtk_widget_get_clipboard (widget);
    if (!clipboard || g_object_get_data (G_OBJECT (clipboard), "menubus-followed"))
        return;
    g_object_set_data (G_OBJECT (clipboard), "menubus-followed", GINT_TO_POINTER (1));
    g_signal_connect (clipboard, "changed", G_CALLBACK (clipboard_formats_changed), NULL);
    clipboard_formats_changed (clipboard);
}
