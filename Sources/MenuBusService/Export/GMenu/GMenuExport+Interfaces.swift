import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// `org.gtk.Menus` and `org.gtk.Actions` on a presentation's path: GLib's
/// `GDBusMenuModel` and `GDBusActionGroup` read them, so a GTK app renders
/// a presented menu with a stock `GtkMenu` or `GtkPopoverMenu` after
/// inserting the action group under the prefix `menubus`.
extension GMenuExport {
    static func gtkMenusInterface(_ menus: PresentedMenus) -> Interface {
        var interface = Interface(MenuBusNames.gtkMenusInterface)
        interface.deferrableMethod(GtkMenusAPI.start) { [unowned menus] call, groups in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            // Counted per group and subscriber, as GLib's exporter does;
            // groups never handed out are ignored (numbered once mapped).
            let export = state.gMenuLayout()
            for group in groups where state.ids.isAllocated(group: group) && !state.isClosing {
                state.subscribe(call.sender, to: group)
            }
            if !groups.isEmpty { menus.consumerOpened(number) }
            if let cached = state.startReplies[groups] {
                call.reply(with: cached)
                return nil
            }
            let prepared = try PreparedReply(GtkMenusAPI.start, export.startRows(groups))
            state.cacheStart(prepared, for: groups)
            call.reply(with: prepared)
            return nil
        }
        interface.method(GtkMenusAPI.end) { [unowned menus] call, groups in
            let number = try PresentedMenus.number(call)
            guard let state = menus.presentations.exports(number) else { return }
            let held = !state.hasNoSubscribers
            for group in groups { state.unsubscribe(call.sender, from: group) }
            // The last subscriber let go: the consumer closed the menu.
            if held, state.hasNoSubscribers { menus.consumerClosed(number) }
        }
        interface.signal(GtkMenusAPI.changed)
        return interface
    }

    static func gtkActionsInterface(_ menus: PresentedMenus) -> Interface {
        var actions = Interface(MenuBusNames.gtkActionsInterface)
        actions.method(GtkActionsAPI.list) { [unowned menus] call in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            return state.gMenuLayout().actions.list
        }
        actions.method(GtkActionsAPI.describe) { [unowned menus] call, name in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            guard let action = state.gMenuLayout().actions.action(name) else {
                throw BusError.invalidArgs("action_name: this menu has no action '\(name)'")
            }
            return action.description
        }
        actions.method(GtkActionsAPI.describeAll) { [unowned menus] call in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            return state.gMenuLayout().actions.describeAll
        }
        actions.method(GtkActionsAPI.activate) { [unowned menus] call, name, parameters, platformData in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            let itemId: String
            do {
                itemId = try state.gMenuLayout().actions.activation(name, parameters: parameters)
            } catch let refusal as GtkActions.Refusal {
                throw BusError.invalidArgs(refusal.message)
            }
            try menus.activate(menus.livePresentation(number), caller: call.sender, itemId: itemId, platformData: platformData)
        }
        actions.method(GtkActionsAPI.setState) { [unowned menus] call, name, value, platformData in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            let itemId: String?
            do {
                itemId = try state.gMenuLayout().actions.stateChange(name, to: value)
            } catch let refusal as GtkActions.Refusal {
                throw BusError.invalidArgs(refusal.message)
            }
            if let itemId {
                try menus.activate(menus.livePresentation(number), caller: call.sender, itemId: itemId, platformData: platformData)
            }
        }
        actions.signal(GtkActionsAPI.changed)
        return actions
    }
}
