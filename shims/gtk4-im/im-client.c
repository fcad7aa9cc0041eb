/* MenuBus on an IM context's client widget: the GTK 4 library
 * (menubus-gtk4.c) attached to a GtkText (so GtkEntry, GtkSearchEntry and
 * the like) or a GtkTextView, merged with the app's own extra menu, and
 * detached when the context gets another client or goes. A password
 * field (hidden text, a password or PIN purpose, a GtkPasswordEntry) gets
 * nothing. */
#include "im-menubus.h"
#include "menubus-gtk4.h"
#include "menubus-policy.h"

/* What menubus-gtk4.c keeps on a widget it attached: a widget the app
 * attached itself is left to the app. */
#define LIBRARY_ATTACHMENT_KEY "menubus-gtk4-attachment"

struct _MbImClient {
    GtkWidget *widget;   /* weak: NULL once finalized */
    GMenuModel *ours;    /* the extra menu the library installed (a reference) */
    gboolean busy;       /* attaching or detaching: its own extra-menu changes */
};

static gboolean
secret (GtkWidget *widget, GtkInputPurpose purpose)
{
    if (purpose == GTK_INPUT_PURPOSE_PASSWORD || purpose == GTK_INPUT_PURPOSE_PIN)
        return TRUE;
    if (GTK_IS_TEXT (widget) && !gtk_text_get_visibility (GTK_TEXT (widget)))
        return TRUE;
    return gtk_widget_get_ancestor (widget, GTK_TYPE_PASSWORD_ENTRY) != NULL;
}

static GMenuModel *
extra_menu (GtkWidget *widget)
{
    if (GTK_IS_TEXT_VIEW (widget))
        return gtk_text_view_get_extra_menu (GTK_TEXT_VIEW (widget));
    return gtk_text_get_extra_menu (GTK_TEXT (widget));
}

static void
set_extra_menu (GtkWidget *widget, GMenuModel *model)
{
    if (GTK_IS_TEXT_VIEW (widget))
        gtk_text_view_set_extra_menu (GTK_TEXT_VIEW (widget), model);
    else
        gtk_text_set_extra_menu (GTK_TEXT (widget), model);
}

static void
detach (MbImClient *client)
{
    if (!client->ours)
        return;
    if (client->widget) {
        client->busy = TRUE;
        menubus_gtk4_detach (client->widget); /* the app's own extra menu goes back */
        client->busy = FALSE;
    }
    g_clear_object (&client->ours);
}

static void
attach (MbImClient *client)
{
    client->busy = TRUE;
    if (menubus_gtk4_attach (client->widget))
        client->ours = g_object_ref (extra_menu (client->widget));
    client->busy = FALSE;
}

/* The app set an extra menu of its own after MenuBus came (the library
 * keeps the one it found at attach): attached again, with the new one as
 * the app's section. */
static void
on_extra_menu (GObject *object, GParamSpec *pspec, gpointer data)
{
    MbImClient *client = data;
    GMenuModel *now = extra_menu (client->widget);
    if (client->busy || !client->ours || now == client->ours)
        return;
    GMenuModel *apps = now ? g_object_ref (now) : NULL;
    detach (client);
    client->busy = TRUE;
    set_extra_menu (client->widget, apps);
    client->busy = FALSE;
    g_clear_object (&apps);
    attach (client);
}

static void
on_visibility (GObject *object, GParamSpec *pspec, gpointer data)
{
    MbImClient *client = data;
    if (!gtk_text_get_visibility (GTK_TEXT (client->widget)))
        detach (client);
}

MbImClient *
mb_im_client_new (GtkWidget *widget, GtkInputPurpose purpose)
{
    if (!GTK_IS_TEXT (widget) && !GTK_IS_TEXT_VIEW (widget))
        return NULL;
    if (secret (widget, purpose)) {
        MB_DEBUG ("IM module: %s is a password field: no menus", G_OBJECT_TYPE_NAME (widget));
        return NULL;
    }
    if (g_object_get_data (G_OBJECT (widget), LIBRARY_ATTACHMENT_KEY))
        return NULL; /* the app attached it itself */
    MbImClient *client = g_new0 (MbImClient, 1);
    client->widget = widget;
    g_object_add_weak_pointer (G_OBJECT (widget), (gpointer *) &client->widget);
    attach (client);
    if (!client->ours) {
        /* MenuBus is off for this program (MENUBUS_DISABLE, [Exclude]). */
        mb_im_client_free (client);
        return NULL;
    }
    g_signal_connect (widget, "notify::extra-menu", G_CALLBACK (on_extra_menu), client);
    if (GTK_IS_TEXT (widget))
        g_signal_connect (widget, "notify::visibility", G_CALLBACK (on_visibility), client);
    return client;
}

void
mb_im_client_purpose (MbImClient *client, GtkInputPurpose purpose)
{
    if (client->widget && secret (client->widget, purpose))
        detach (client);
}

void
mb_im_client_free (MbImClient *client)
{
    if (client->widget) {
        g_signal_handlers_disconnect_by_data (client->widget, client);
        detach (client);
        g_object_remove_weak_pointer (G_OBJECT (client->widget), (gpointer *) &client->widget);
    } else {
        detach (client);
    }
    g_free (client);
}
