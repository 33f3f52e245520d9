package io.hedgerow.coordination;

/**
 * Hears this process gain and lose placement leadership. Called on Curator's event thread: return
 * quickly. {@link #lost} comes also when the connection is suspended, before the session is known to
 * have expired: stop acting as leader at once, since another may already be.
 */
public interface LeadershipListener {
    void gained();

    void lost();
}
