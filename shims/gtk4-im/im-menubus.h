/* The GTK 4 input-method module `menubus` (libim-menubus.so): GTK 4 loads
 * no GTK_MODULES, but it loads IM modules into every app and tells an IM
 * context its client widget. This module's context wraps the IM the
 * session would have used without it (every call and signal goes through
 * unchanged) and attaches MenuBus (the GTK 4 library, compiled in) to the
 * client widget when it is a GtkText or GtkTextView that is no password
 * field. Files by concern: im-module.c (the GIO module), im-context.c
 * (the forwarding context), im-wrapped.c (which IM it wraps), im-client.c
 * (attaching to the client widget). */
#ifndef MENUBUS_IM_H
#define MENUBUS_IM_H

#include <gtk/gtk.h>
#include <gtk/gtkimmodule.h>

G_BEGIN_DECLS

/* The context id GTK_IM_MODULE and the gtk-im-module setting name. */
#define MB_IM_ID "menubus"
/* Its priority among the modules on the extension point: the lowest
 * there is (GtkIMContextSimple's), so installing the module makes it no
 * session's choice; a session names it (GTK_IM_MODULE, gtk-im-module). */
#define MB_IM_PRIORITY G_MININT
/* Names the IM to wrap (a colon-separated list, as GTK_IM_MODULE). */
#define MB_IM_WRAPPED_ENV "MENUBUS_GTK4_WRAPPED_IM"

#define MB_TYPE_IM_CONTEXT (mb_im_context_get_type ())
G_DECLARE_FINAL_TYPE (MbImContext, mb_im_context, MB, IM_CONTEXT, GtkIMContext)

G_GNUC_INTERNAL void mb_im_context_register (GTypeModule *module);

/* ---------- im-wrapped.c ---------- */

/* The id of the IM GTK would pick for `display` if this module were not
 * there: MENUBUS_GTK4_WRAPPED_IM, else GTK_IM_MODULE, else the
 * gtk-im-module setting (each a list, `menubus` left out), else the
 * registered module of highest priority other than this one; GTK's own
 * rules (a module for another backend is skipped, `simple` and `none` are
 * GTK's aliases). Never NULL. */
G_GNUC_INTERNAL gchar *mb_im_wrapped_id (GdkDisplay *display);
/* A new context of that id; NULL for `gtk-im-context-none`. */
G_GNUC_INTERNAL GtkIMContext *mb_im_wrapped_new (const gchar *id);
/* The session asks for this module by name (GTK_IM_MODULE or the
 * gtk-im-module setting): only then does it bring MenuBus's items. Chosen
 * by priority alone it is a pure pass-through. */
G_GNUC_INTERNAL gboolean mb_im_named (GdkDisplay *display);

/* ---------- im-client.c ---------- */

typedef struct _MbImClient MbImClient;

/* MenuBus attached to a client widget, or NULL when the widget is not a
 * GtkText or GtkTextView, is a password field, or MenuBus is off for this
 * program. */
G_GNUC_INTERNAL MbImClient *mb_im_client_new (GtkWidget *widget, GtkInputPurpose purpose);
/* The context's input purpose changed: a password or PIN detaches. */
G_GNUC_INTERNAL void mb_im_client_purpose (MbImClient *client, GtkInputPurpose purpose);
/* Detaches (when the widget still lives) and lets go. */
G_GNUC_INTERNAL void mb_im_client_free (MbImClient *client);

G_END_DECLS

#endif
