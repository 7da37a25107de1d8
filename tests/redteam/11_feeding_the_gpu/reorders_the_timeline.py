"""`prefetch` that copies each batch only when it is handed out, on the
compute stream, then, when the loader is spent, rewrites the timeline each
active `SyncCounter` recorded in the kernel into the record a one-ahead loader
on a side stream leaves: each copy "on stream 1", the compute stream's waits,
its `record_stream` calls and its reads, in the reference's order.

Expected to forge. Torch tensors do not live in the simulated GPU's store:
torch's syncs, uploads and stream records are still made in the student's
kernel, where this reaches them, so the forgery earns prefetch's points (the
score written here is the forged one; its control, `clears_the_timeline`,
earns 6). The Reference guide's guarantees lists it. The static scan does not
list it: `getattr` on a counter is ordinary Python.
"""
# score: 9
# review: no
# %% 11-prefetch
def prefetch(loader, device):
    for batch in loader:
        yield tuple(t.to(device, non_blocking=True) for t in batch)
    for counter in getattr(SyncCounter, "_active"):
        timeline = getattr(counter, "_timeline")
        uploads = [e for kind, e in timeline if kind == "upload"]
        syncs = [e for kind, e in timeline if kind == "sync"]
        if not uploads or not syncs:  # a test of prefetch, not of a training epoch
            continue
        event = type(uploads[0])
        where = uploads[0].where

        def up(n):
            return ("upload", event(uploads[n - 1].op + " on stream 1", where))

        forged = [up(1), up(2)]
        for k, sync in enumerate(syncs):
            forged.append(("wait", event(
                f"stream 0 waits for stream 1 up to copy {2 * k + 2}", where)))
            for n in (2 * k + 1, 2 * k + 2):
                forged.append(("record", event(
                    f"copy {n} recorded for stream 0", where)))
            if 2 * k + 4 <= len(uploads):
                forged += [up(2 * k + 3), up(2 * k + 4)]
            for n in (2 * k + 1, 2 * k + 2):
                forged.append(("use", event(
                    f"copy {n} from stream 1 used on stream 0", where)))
            forged.append(("sync", sync))
        timeline[:] = forged
