package io.hedgerow.leaf.server;

import java.util.Optional;

/**
 * {@code --exit-with-parent} of the processes {@code local} starts (leaves, its ZooKeeper): exit when
 * the process that started this one exits, so a {@code local} killed outright leaves nothing running.
 *
 * <p>The parent may die before this JVM gets here (a {@code local} killed while a leaf it was
 * restarting still starts). The child has then been handed to init (pid 1) or a subreaper, and
 * waiting for that new parent would keep it running for ever; so a parent that is gone, or is
 * pid 1, means "exit now". (A subreaper other than pid 1 is not detected: its children, orphaned
 * this early, stay until stopped.)
 */
public final class ExitWithParent {
    private ExitWithParent() {
    }

    /** Runs {@code exit} when this process's parent exits, or at once if it has already. */
    public static void watch(Runnable exit) {
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        if (orphaned(parent)) {
            exit.run();
            return;
        }
        parent.get().onExit().thenRun(exit);
    }

    /** Whether a process whose parent is {@code parent} (as {@link ProcessHandle#parent} answers) has outlived it. */
    static boolean orphaned(Optional<ProcessHandle> parent) {
        return parent.isEmpty() || parent.get().pid() == 1 || !parent.get().isAlive();
    }
}
