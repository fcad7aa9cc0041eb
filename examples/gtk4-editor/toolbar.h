/* The editor's toolbar: a Back button whose tap goes back and whose press
 * and hold shows the places visited, through MenuBus (toolbar.c). */
#ifndef GTK4_EDITOR_TOOLBAR_H
#define GTK4_EDITOR_TOOLBAR_H

#include <gtk/gtk.h>

typedef struct _Toolbar Toolbar;

/* The toolbar of `window`, at `home`; with `use_menubus` FALSE (MenuBus
 * turned off) a tap still goes back and there is no history menu. */
Toolbar *toolbar_new (GtkWindow *window, const char *app_id, const char *home, gboolean use_menubus);
GtkWidget *toolbar_back_button (Toolbar *toolbar);
/* Goes to `place`: the window's title names it, and Back returns from it. */
void toolbar_visit (Toolbar *toolbar, const char *place);

#endif
