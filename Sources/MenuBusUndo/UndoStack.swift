import MenuBusModel

/// The undo history of one document, as a plain value: no files, no bus,
/// no clock. Semantics follow QUndoStack and Foundation's UndoManager.
///
/// ```swift
/// var stack = UndoStack()
/// try stack.register(actionName: "Typing", undo: [1], redo: [2], mergeKey: "typing")
/// try stack.register(actionName: "Typing", undo: [3], redo: [4], mergeKey: "typing")
/// stack.state.undoTitle            // "Undo Typing", undoCount 1: the two merged
/// let move = try stack.undo()      // ("Typing", [[3], [1]]): undo payloads newest first
/// try stack.redo().payloads        // [[2], [4]]: redo payloads oldest first
/// ```
///
/// - **Steps.** A step is an action name and, for every `RegisterUndo` that
///   went into it, an undo and a redo payload (`UndoStep`). A new step
///   clears the redo steps.
/// - **Merging.** A registration whose non-empty `mergeKey` equals that of
///   the step on top of the undo stack joins that step (typing): its
///   payloads are appended, the step keeps its name. As in QUndoStack, a
///   step never merges into the step at the clean mark (so Undo returns to
///   the saved text), nor across a group boundary (a group's step has no
///   merge key; registrations inside a group ignore theirs), nor when the
///   merged step would outgrow the byte quota (it starts a new step).
/// - **Groups.** `beginGroup`/`endGroup` nest up to `UndoLimits.maxGroupDepth`;
///   every registration inside the outermost group becomes one step named
///   by the outermost group, added when it ends. An empty group adds
///   nothing and leaves redo alone. Undo, Redo and MarkClean are refused
///   (`groupOpen`) while a group is open; `endGroup` without a group is
///   `noOpenGroup`.
/// - **Clean.** A new stack is clean; `markClean` marks the current position
///   and undoing or redoing back to it is clean again. When the marked
///   position is lost (its step was in the redo steps a new step cleared,
///   or was dropped), the stack is never clean until marked again.
///   `clear()` empties everything, open groups too, and leaves the stack
///   clean with `dropped` 0 (QUndoStack::clear); the levels stay.
/// - **Bounds.** `setLimit(levels:)` (0 = unlimited, the default) bounds the
///   undo steps and, separately, the redo steps; the byte quota
///   (`UndoLimits.bytesPerDocument`) bounds the cost of all steps. Going
///   over either drops the oldest undo steps (then the farthest redo
///   steps), counted in `dropped`. Bounds on input (payload, name and key
///   sizes, group size and depth) refuse the call instead, before anything
///   changes: every throwing method either throws and changes nothing or
///   succeeds.
///
/// `perform(_:)` applies an `UndoOperation`, the same unit the journal
/// records; the named methods are shorthands for it. Storage: one array of
/// steps with the redo steps above the undo position, so undo and redo move
/// an index; dropped steps leave an empty placeholder until half the array
/// is placeholders, so dropping is amortized constant time.
package struct UndoStack: Sendable {
    /// What Undo or Redo hands back: the step's action name and the
    /// payloads to apply in order (undo: newest first; redo: oldest first).
    package struct Move: Hashable, Sendable {
        package var actionName: String
        package var payloads: [[UInt8]]
    }

    /// The byte bounds this stack applies.
    package private(set) var limits: UndoLimits
    /// Undo levels; 0 means unlimited.
    package private(set) var levels = 0
    /// Steps dropped by the levels or the quota since creation or `clear`.
    package private(set) var dropped = 0
    /// Names of the open groups, outermost first.
    private(set) var groupNames: [String] = []
    /// Sum of `UndoStep.cost` over the live steps (not the open group).
    private(set) var liveBytes = 0

    /// `steps[bottom..<position]` can be undone (top last),
    /// `steps[position...]` redone (next first); below `bottom` are
    /// placeholders of dropped steps.
    private var steps: [UndoStep] = []
    private var bottom = 0
    private var position = 0
    /// The marked clean position, an index into `steps`; nil when lost.
    private var cleanIndex: Int? = 0
    /// The registrations of the open outermost group, named by it.
    private var group: UndoStep?

    package init(limits: UndoLimits = UndoLimits()) {
        self.limits = limits
    }

    // MARK: Reading

    package var undoCount: Int { position - bottom }
    package var redoCount: Int { steps.count - position }
    package var groupDepth: Int { groupNames.count }

    /// The live steps, oldest first; the first `undoCount` can be undone.
    package var liveSteps: ArraySlice<UndoStep> { steps[bottom...] }

    /// The clean mark as a number of undo steps, nil when unreachable.
    var cleanUndoCount: Int? { cleanIndex.map { $0 - bottom } }

    /// The registrations of the open group so far (nil when none is open).
    var openGroupStep: UndoStep? { group }

    /// Cost of the live steps and the open group: what a snapshot keeps.
    var totalBytes: Int { liveBytes + (group?.cost ?? 0) }

    package var state: UndoState {
        let idle = group == nil
        let canUndo = idle && position > bottom
        let canRedo = idle && position < steps.count
        return UndoState(
            canUndo: canUndo, canRedo: canRedo,
            undoActionName: canUndo ? steps[position - 1].actionName : nil,
            redoActionName: canRedo ? steps[position].actionName : nil,
            undoCount: undoCount, redoCount: redoCount,
            clean: cleanIndex == position && (group?.registrationCount ?? 0) == 0,
            dropped: dropped, groupDepth: groupNames.count, openGroup: groupNames.first)
    }

    // MARK: Changing

    /// Adds a step, merges it into the top one or adds it to the open
    /// group; returns the undo count after it.
    @discardableResult
    package mutating func register(actionName: String, undo: [UInt8], redo: [UInt8],
                           mergeKey: String = "") throws(UndoError) -> Int {
        try perform(.register(actionName: actionName, undo: undo, redo: redo, mergeKey: mergeKey))
        return undoCount
    }

    package mutating func beginGroup(actionName: String) throws(UndoError) {
        try perform(.beginGroup(actionName: actionName))
    }

    package mutating func endGroup() throws(UndoError) {
        try perform(.endGroup)
    }

    /// Moves the top step to the redo steps and returns its undo payloads, newest first.
    package mutating func undo() throws(UndoError) -> Move {
        guard let move = try perform(.undo) else { throw UndoError(kind: .nothingToUndo, field: "documentId", message: "nothing to undo") }
        return move
    }

    /// Moves the next redo step back and returns its redo payloads, oldest first.
    package mutating func redo() throws(UndoError) -> Move {
        guard let move = try perform(.redo) else { throw UndoError(kind: .nothingToRedo, field: "documentId", message: "nothing to redo") }
        return move
    }

    package mutating func markClean() throws(UndoError) {
        try perform(.markClean)
    }

    /// Sets the undo levels (0 = unlimited) and drops what is over them now.
    package mutating func setLimit(levels: Int) throws(UndoError) {
        try perform(.setLimit(levels: levels))
    }

    package mutating func clear() {
        _ = try? perform(.clear)
    }

    /// Applies one operation; returns the move for `.undo` and `.redo`.
    ///
    /// With `checkingInput` false (replaying a journal) the bounds on input
    /// are not checked again: they were when the operation was accepted,
    /// and a lower setting since must not cut a history short. Drops by
    /// levels and quota happen either way.
    @discardableResult
    package mutating func perform(_ operation: UndoOperation, checkingInput: Bool = true) throws(UndoError) -> Move? {
        try check(operation, checkingInput: checkingInput)
        switch operation {
        case let .register(actionName, undo, redo, mergeKey):
            add(actionName: actionName, undo: undo, redo: redo, mergeKey: mergeKey)
        case let .beginGroup(actionName):
            if groupNames.isEmpty { group = UndoStep(actionName: actionName) }
            groupNames.append(actionName)
        case .endGroup:
            groupNames.removeLast()
            if groupNames.isEmpty, let step = group {
                group = nil
                if step.registrationCount > 0 { push(step) }
            }
        case .undo:
            position -= 1
            return Move(actionName: steps[position].actionName, payloads: steps[position].undoPayloads)
        case .redo:
            position += 1
            return Move(actionName: steps[position - 1].actionName, payloads: steps[position - 1].redoPayloads)
        case .markClean:
            cleanIndex = position
        case let .setLimit(levels):
            self.levels = levels
            enforceBounds()
        case .clear:
            let levels = self.levels
            self = UndoStack(limits: limits)
            self.levels = levels
        }
        return nil
    }

    /// Throws what `perform` would throw, changing nothing.
    package func check(_ operation: UndoOperation, checkingInput: Bool = true) throws(UndoError) {
        switch operation {
        case let .register(actionName, undo, redo, mergeKey):
            let payload = undo.count + redo.count
            if checkingInput {
                try Self.checkName(actionName)
                try Self.check(.mergeKeyBytes, field: "options.merge-key", mergeKey.utf8.count, UndoLimits.maxMergeKeyBytes)
                try Self.check(.payloadBytesPerStep, field: "undoData", payload, limits.payloadBytesPerStep)
                let cost = UndoStep.cost(encodedBytes: payload + UndoLimits.registrationOverheadBytes,
                                         actionName: actionName, mergeKey: mergeKey)
                if let group {
                    try Self.check(.stepsPerGroup, field: "documentId", group.registrationCount + 1, UndoLimits.maxStepsPerGroup)
                    try Self.check(.bytesPerDocument, field: "undoData",
                                   group.cost + payload + UndoLimits.registrationOverheadBytes, limits.bytesPerDocument)
                } else {
                    try Self.check(.bytesPerDocument, field: "undoData", cost, limits.bytesPerDocument)
                }
            }
        case let .beginGroup(actionName):
            if checkingInput {
                try Self.checkName(actionName)
                try Self.check(.groupDepth, field: "documentId", groupNames.count + 1, UndoLimits.maxGroupDepth)
            }
        case .endGroup:
            guard !groupNames.isEmpty else {
                throw UndoError(kind: .noOpenGroup, field: "documentId", message: "no undo group is open")
            }
        case .undo:
            try checkNoGroup("Undo")
            guard position > bottom else { throw UndoError(kind: .nothingToUndo, field: "documentId", message: "nothing to undo") }
        case .redo:
            try checkNoGroup("Redo")
            guard position < steps.count else { throw UndoError(kind: .nothingToRedo, field: "documentId", message: "nothing to redo") }
        case .markClean:
            try checkNoGroup("MarkClean")
        case let .setLimit(levels):
            guard levels >= 0 else {
                throw UndoError(kind: .invalidArgument, field: "levels", message: "\(levels) is negative")
            }
        case .clear:
            break
        }
    }

    // MARK: Private

    private func checkNoGroup(_ call: String) throws(UndoError) {
        guard groupNames.isEmpty else {
            throw UndoError(kind: .groupOpen, field: "documentId",
                            message: "\(call) while the undo group '\(groupNames[0])' is open (depth \(groupNames.count)); end it first")
        }
    }

    private static func checkName(_ name: String) throws(UndoError) {
        try check(.actionNameBytes, field: "actionName", name.utf8.count, UndoLimits.maxActionNameBytes)
    }

    private static func check(_ bound: UndoLimits.Bound, field: String, _ value: Int, _ limit: Int) throws(UndoError) {
        guard value <= limit else { throw .limit(bound, field: field, value: value, limit: limit) }
    }

    private mutating func add(actionName: String, undo: [UInt8], redo: [UInt8], mergeKey: String) {
        if group != nil {
            group?.append(undo: undo, redo: redo)
            return
        }
        clearRedo()
        let growth = undo.count + redo.count + UndoLimits.registrationOverheadBytes
        if !mergeKey.isEmpty, position > bottom, cleanIndex != position,
           steps[position - 1].mergeKey == mergeKey,
           steps[position - 1].cost + growth <= limits.bytesPerDocument {
            steps[position - 1].append(undo: undo, redo: redo)
            liveBytes += growth
            enforceBounds()
            return
        }
        // Share the previous step's string storage when the name or key is
        // the same (strings over 15 bytes are allocated).
        var name = actionName
        var key = mergeKey
        if position > bottom {
            if steps[position - 1].actionName == actionName { name = steps[position - 1].actionName }
            if steps[position - 1].mergeKey == mergeKey { key = steps[position - 1].mergeKey }
        }
        push(UndoStep(actionName: name, mergeKey: key, undo: undo, redo: redo))
    }

    private mutating func push(_ step: UndoStep) {
        clearRedo()
        steps.append(step)
        position += 1
        liveBytes += step.cost
        enforceBounds()
    }

    private mutating func clearRedo() {
        guard position < steps.count else { return }
        for index in position..<steps.count { liveBytes -= steps[index].cost }
        steps.removeSubrange(position...)
        if let clean = cleanIndex, clean > position { cleanIndex = nil }
    }

    /// Drops the oldest undo steps, then the farthest redo steps, while
    /// the levels or the quota are exceeded.
    private mutating func enforceBounds() {
        if levels > 0 {
            while undoCount > levels { dropOldest() }
            while redoCount > levels { dropFarthestRedo() }
        }
        while liveBytes > limits.bytesPerDocument {
            if undoCount > 0 {
                dropOldest()
            } else if redoCount > 0 {
                dropFarthestRedo()
            } else {
                break
            }
        }
        if bottom > 0, bottom * 2 >= steps.count {
            steps.removeFirst(bottom)
            position -= bottom
            cleanIndex = cleanIndex.map { $0 - bottom }
            bottom = 0
        }
    }

    private mutating func dropOldest() {
        liveBytes -= steps[bottom].cost
        steps[bottom] = .empty
        bottom += 1
        dropped += 1
        if let clean = cleanIndex, clean < bottom { cleanIndex = nil }
    }

    private mutating func dropFarthestRedo() {
        liveBytes -= steps.removeLast().cost
        dropped += 1
        if let clean = cleanIndex, clean > steps.count { cleanIndex = nil }
    }
}

extension UndoStack {
    /// A stack from a journal snapshot: the live steps oldest first, how
    /// many can be undone, the clean mark as an undo count, and the
    /// counters. Nil when they do not fit together. Bounds apply at once,
    /// so a lower quota set since the snapshot drops steps here.
    package init?(limits: UndoLimits, steps: [UndoStep], undoCount: Int, cleanUndoCount: Int?,
          dropped: Int, levels: Int) {
        guard (0...steps.count).contains(undoCount), dropped >= 0, levels >= 0 else { return nil }
        if let clean = cleanUndoCount, !(0...steps.count).contains(clean) { return nil }
        self.init(limits: limits)
        self.steps = steps
        // Equal names of neighbouring steps share one string's storage, as
        // they do when registered (names over 15 bytes are allocated).
        for index in self.steps.indices.dropFirst() {
            let previous = self.steps[index - 1]
            if self.steps[index].actionName == previous.actionName { self.steps[index].actionName = previous.actionName }
            if self.steps[index].mergeKey == previous.mergeKey { self.steps[index].mergeKey = previous.mergeKey }
        }
        position = undoCount
        cleanIndex = cleanUndoCount
        self.dropped = dropped
        self.levels = levels
        liveBytes = steps.reduce(0) { $0 + $1.cost }
        enforceBounds()
    }
}

extension UndoStack: Equatable {
    /// Equal histories: the same live steps, position, clean mark, counters,
    /// open groups and limits, however the storage is laid out.
    package static func == (lhs: UndoStack, rhs: UndoStack) -> Bool {
        lhs.limits == rhs.limits && lhs.levels == rhs.levels && lhs.dropped == rhs.dropped
            && lhs.undoCount == rhs.undoCount && lhs.cleanUndoCount == rhs.cleanUndoCount
            && lhs.groupNames == rhs.groupNames && lhs.group == rhs.group
            && lhs.liveBytes == rhs.liveBytes && lhs.liveSteps.elementsEqual(rhs.liveSteps)
    }
}
