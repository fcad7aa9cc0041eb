#if canImport(Glibc)
import Glibc
#endif

/// One thread of the store's own that runs the disk work given to it, one
/// piece at a time, in order, at a lower priority than the loop.
///
/// A thread rather than a Dispatch queue: Dispatch keeps each finished
/// piece's continuation in a cache of the worker thread that ran it, up to
/// 2,048 of them, and frees them only when that thread exits, seconds after
/// the work. Those small blocks were taken from the loop's heap in the
/// middle of the work's large messages, so until they go each pins a page
/// the load touched: after 50 apps took 1 MiB undo steps and left, 3 MiB of
/// the daemon's heap stayed resident past its trim. Here a piece is freed
/// as soon as it has run.
final class UndoDiskThread: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var pending: [(@Sendable () -> Void)?] = []
    private var busy = false
    private var stopping = false
    private var thread: pthread_t?

    /// Nil if the thread cannot be started.
    init?() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
        var created = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&created, nil, { box in
            let worker = Unmanaged<UndoDiskThread>.fromOpaque(box!).takeRetainedValue()
            worker.run()
            return nil
        }, box) == 0 else {
            // Initialized in full, so deinit runs and frees the lock.
            Unmanaged<UndoDiskThread>.fromOpaque(box).release()
            return nil
        }
        thread = created
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Queues `work` after what is queued; not after `stop()`.
    func async(_ work: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        precondition(!stopping, "work queued on a stopped undo disk thread")
        pending.append(work)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }

    /// Returns once everything queued before the call has run.
    func waitUntilIdle() {
        pthread_mutex_lock(mutex)
        while busy || !pending.isEmpty { pthread_cond_wait(changed, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Runs what is queued, then ends the thread and waits for it.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(changed)
        let running = thread
        thread = nil
        pthread_mutex_unlock(mutex)
        if let running { pthread_join(running, nil) }
    }

    private func run() {
        // The loop, which answers every app, gets the processor before
        // checksums and copies of journals.
        UndoFiles.lowerThreadPriority()
        pthread_mutex_lock(mutex)
        while true {
            while pending.isEmpty && !stopping { pthread_cond_wait(changed, mutex) }
            if pending.isEmpty { break }
            var batch: [(@Sendable () -> Void)?] = []
            swap(&batch, &pending)
            busy = true
            pthread_mutex_unlock(mutex)
            // Each piece, with what it holds (an append's records), is
            // freed once it has run, not with the rest of the batch.
            for index in batch.indices {
                let work = batch[index]
                batch[index] = nil
                work?()
            }
            batch = []
            pthread_mutex_lock(mutex)
            busy = false
            pthread_cond_broadcast(changed)
        }
        pthread_mutex_unlock(mutex)
    }
}
