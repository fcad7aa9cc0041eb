import MenuBusModel

extension UndoJournal {
    /// The records that rebuild `document` exactly, in journal order:
    /// header, touched, the snapshot counters, every live step oldest
    /// first, then any open group as begin-group records and the group's
    /// registrations as register records.
    static func snapshotRecords<E: Error>(of document: UndoDocument,
                                          _ body: (UndoRecord) throws(E) -> Void) throws(E) {
        let stack = document.stack
        try body(.header(document.key))
        try body(.touched(document.lastTouched))
        let steps = stack.liveSteps
        try body(.snapshot(UndoRecord.Snapshot(stepCount: steps.count, undoCount: stack.undoCount,
                                               cleanUndoCount: stack.cleanUndoCount,
                                               dropped: stack.dropped, levels: stack.levels)))
        for step in steps { try body(.snapshotStep(step)) }
        for name in stack.groupNames { try body(.operation(.beginGroup(actionName: name))) }
        guard let group = stack.openGroupStep else { return }
        var registrations: [UndoOperation] = []
        group.forEachRegistration { undo, redo in
            registrations.append(.register(actionName: "", undo: Array(undo), redo: Array(redo), mergeKey: ""))
        }
        for registration in registrations { try body(.operation(registration)) }
    }
}
