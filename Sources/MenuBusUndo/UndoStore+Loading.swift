import MenuBusModel

extension UndoStore {
    /// What reading one journal gave.
    package struct LoadResult {
        /// The document now in memory, if one was.
        package var key: UndoDocumentKey?
        package var finding: UndoLoadFinding?
        /// The file could not be read at all; nothing changed.
        var readError: UndoFileError?
    }

    /// Lists the directory (creating it if needed) at start: names and
    /// sizes only, no journal is read. Each journal is read on the first
    /// use of its document (`makeResident`, through `perform` and `state`),
    /// so start-up does not grow with the store, and a damaged or
    /// unreadable journal touches only its own document. Leftover
    /// `.undo.tmp` files are removed. Later calls list nothing more. When
    /// the directory cannot be made or listed, the finding says why and
    /// the next call or `perform` tries again.
    @discardableResult
    package func indexJournals() -> UndoLoadReport {
        var report = UndoLoadReport()
        guard !isLoaded else { return report }
        let entries: [UndoFiles.Entry]
        do {
            try prepareDirectoryForLoading()
            entries = try UndoFiles.listEntries(directory)
        } catch {
            report.findings.append(UndoLoadFinding(fileName: "", key: nil, recordsLoaded: 0, kind: .failed(error)))
            return report
        }
        markLoaded()
        reserve(entries.map(\.name))
        for entry in entries {
            if entry.name.hasSuffix(UndoFileName.temporarySuffix) {
                try? UndoFiles.remove(directory + "/" + entry.name)
                release(entry.name)
                continue
            }
            guard entry.name.hasSuffix(UndoFileName.suffix) else { continue }
            addPending(entry)
        }
        return report
    }

    /// Reads every journal in the directory now (`indexJournals()`, then
    /// each pending journal): the documents found, and findings for torn,
    /// damaged or unreadable files, each repaired as `UndoLoadFinding.Kind`
    /// says. For tools and tests; the service loads lazily.
    package func loadAll() -> UndoLoadReport {
        var report = indexJournals()
        guard isLoaded else { return report }
        let files = pending.values.joined().sorted { $0.name < $1.name }
        for file in files {
            let result = load(file.name, counted: false)
            if let finding = result.finding { report.findings.append(finding) }
            if result.readError == nil { dropPending(file, hash: UndoFileName.parse(file.name)?.hash ?? "") }
        }
        enforceMemoryBudget()
        report.documents = (Array(documents.keys) + Array(evicted.keys))
            .sorted { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) }
        return report
    }

    /// Loads one journal file; returns what was wrong with it, if anything.
    /// `counted`: the document was dropped from memory and is read again.
    package func load(_ name: String, counted: Bool) -> LoadResult {
        let path = directory + "/" + name
        let bytes: [UInt8]
        journalsRead += 1
        do {
            bytes = try UndoFiles.read(path)
        } catch {
            return LoadResult(key: nil, finding: UndoLoadFinding(fileName: name, key: nil, recordsLoaded: 0, kind: .failed(error)),
                              readError: error)
        }
        let replay = UndoJournal.replay(bytes, limits: limits)
        var finding = UndoLoadFinding(fileName: name, key: replay.key, recordsLoaded: replay.records, kind: .discarded)
        guard let key = replay.key else {
            if case .damaged(_, let reason) = replay.ending {
                finding.kind = .unreadable(reason: reason)
            } else {
                try? UndoFiles.remove(path)
                release(name)
            }
            return LoadResult(key: nil, finding: finding)
        }
        guard documents[key] == nil, counted || evicted[key] == nil else {
            finding.kind = .duplicate
            return LoadResult(key: nil, finding: finding)
        }
        let journal = UndoJournal(directory: directory, fileName: name, size: replay.goodLength)
        let document = UndoDocument(key: key, stack: replay.stack, lastTouched: replay.lastTouched,
                                    journaledTouch: replay.lastTouched, journal: journal)
        adopt(document, counted: counted)
        switch replay.ending {
        case .complete:
            return LoadResult(key: key)
        case .torn:
            finding.kind = .tornTail(bytesCut: bytes.count - replay.goodLength)
            do {
                try UndoFiles.truncate(path: path, to: replay.goodLength)
            } catch {
                journal.markBroken()
                finding.kind = .failed(error)
            }
        case let .damaged(offset, reason):
            finding.kind = .damaged(offset: offset, bytesNotLoaded: bytes.count - offset, reason: reason)
            do {
                try UndoFiles.link(path, to: UndoJournal.damagedPath(of: path))
                reserve([name + ".damaged"])
            } catch {
                // Keeping a copy is a courtesy; the journal is repaired regardless.
            }
            do {
                try journal.rewrite(document)
            } catch {
                journal.markBroken()
            }
        }
        return LoadResult(key: key, finding: finding)
    }
}
