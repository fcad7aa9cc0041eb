import MenuBusModel

extension UndoJournal {
    /// What loading a journal's bytes gave.
    package struct Replay {
        /// The document the header names; nil when there is no usable header.
        package var key: UndoDocumentKey?
        /// The stack rebuilt from every record before the end or the damage.
        package var stack: UndoStack
        /// The last `touched` time recorded; 0 when none.
        var lastTouched: Int64
        /// Records applied.
        package var records: Int
        /// Bytes of the good records: where the file should end.
        var goodLength: Int
        package var ending: Ending
    }

    /// How a journal's bytes end.
    package enum Ending: Hashable, Sendable {
        /// Every byte is part of a good record.
        case complete
        /// A crash cut the last write short: the file ends inside a record,
        /// the last record fails its checksum, or the tail is zero bytes
        /// (blocks allocated but never written before a power loss). Only
        /// unacknowledged or unsynced writes can be there; cut it off.
        case torn
        /// A bad record with good bytes after it, or a record that does not
        /// fit where it is: loading stopped at `offset`; nothing after it
        /// is read (record boundaries after a damaged length cannot be
        /// trusted, and operations after a gap would apply to the wrong
        /// state).
        case damaged(offset: Int, reason: String)
    }

    /// Rebuilds a document from a journal's bytes. Pure: no files.
    ///
    /// Operations replay with `checkingInput: false` (they were checked
    /// when accepted; a lower bound set since must not cut history), and
    /// drops by levels and the quota happen as they did, so with the same
    /// `limits` the stack is exactly the one that was journaled.
    ///
    /// A snapshot cut short by damage keeps the steps before the damage:
    /// those below its undo count as undo steps, the others as redo steps.
    package static func replay(_ bytes: [UInt8], limits: UndoLimits) -> Replay {
        var replay = Replay(key: nil, stack: UndoStack(limits: limits), lastTouched: 0, records: 0,
                            goodLength: 0, ending: .complete)
        var snapshot: UndoRecord.Snapshot?
        var snapshotSteps: [UndoStep] = []
        var sawOperation = false
        var offset = 0

        func finishSnapshot() -> Bool {
            guard let head = snapshot else { return true }
            snapshot = nil
            let count = snapshotSteps.count
            let clean = head.cleanUndoCount.flatMap { $0 <= count ? $0 : nil }
            guard let stack = UndoStack(limits: limits, steps: snapshotSteps, undoCount: min(head.undoCount, count),
                                        cleanUndoCount: clean, dropped: head.dropped, levels: head.levels) else {
                return false
            }
            replay.stack = stack
            snapshotSteps = []
            return true
        }

        func stop(_ reason: String) {
            replay.ending = .damaged(offset: offset, reason: reason)
        }

        scan: while offset < bytes.count {
            let body: Range<Int>
            switch UndoRecord.frame(in: bytes, at: offset) {
            case let .record(range):
                body = range
            case .truncated:
                replay.ending = .torn
                break scan
            case .badLength:
                if bytes[offset...].allSatisfy({ $0 == 0 }) {
                    replay.ending = .torn
                } else {
                    stop("a record's length is damaged")
                }
                break scan
            case let .badChecksum(end):
                if end == bytes.count {
                    replay.ending = .torn
                } else {
                    stop("a record fails its checksum")
                }
                break scan
            }
            guard let record = UndoRecord.decode(bytes, body: body) else {
                stop("a record of an unknown kind or malformed")
                break scan
            }
            if replay.key == nil {
                guard case let .header(key) = record else {
                    stop("the journal does not start with a header")
                    break scan
                }
                replay.key = key
            } else {
                switch record {
                case .header:
                    stop("a second header")
                    break scan
                case let .touched(seconds):
                    replay.lastTouched = seconds
                case let .snapshot(head):
                    guard snapshot == nil, !sawOperation, replay.records <= 2 else {
                        stop("a snapshot after operations")
                        break scan
                    }
                    snapshot = head
                    if head.stepCount == 0, !finishSnapshot() {
                        stop("a snapshot whose counters do not fit")
                        break scan
                    }
                case let .snapshotStep(step):
                    guard let head = snapshot, snapshotSteps.count < head.stepCount else {
                        stop("a snapshot step outside a snapshot")
                        break scan
                    }
                    snapshotSteps.append(step)
                    if snapshotSteps.count == head.stepCount, !finishSnapshot() {
                        stop("a snapshot whose counters do not fit")
                        break scan
                    }
                case let .operation(operation):
                    guard snapshot == nil else {
                        stop("an operation inside a snapshot")
                        break scan
                    }
                    sawOperation = true
                    do {
                        try replay.stack.perform(operation, checkingInput: false)
                    } catch {
                        stop("an operation that does not apply (\(error.description))")
                        break scan
                    }
                }
            }
            replay.records += 1
            offset = body.upperBound
            replay.goodLength = offset
        }
        if snapshot != nil {
            _ = finishSnapshot()
        }
        return replay
    }
}
