package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.NodeId;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which leaves the HelloAck node-id check accepts at a slot (review42b finding 8: only its refusal was
 * tested): the same id, no id (an older leaf, or one without {@code --zk}), no membership (a root
 * without {@code --zk}), a slot membership has not seen registered (after a reuse) and a leaf that left;
 * and it refuses another id than the one registered there.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeafIdentityTest {
    private static MembershipView slot0(MembershipView.Member member) {
        return new MembershipView(true, List.of(member), List.of(), new long[1], false);
    }

    private static MembershipView.Member member(MembershipView.State state, String node) {
        return new MembershipView.Member(state, node == null ? null : NodeId.of(node), 0);
    }

    private static String check(String announced, MembershipView membership) {
        return LeafIdentity.mismatch("127.0.0.1:9001", 0, announced, membership);
    }

    @Test
    void acceptsTheRegisteredIdAndEveryCaseWhereOneSideDoesNotKnow() {
        MembershipView registered = slot0(member(MembershipView.State.REGISTERED, "leaf-a"));
        assertThat(check("leaf-a", registered)).as("the same id (a leaf restarted as itself)").isNull();
        assertThat(check("", registered)).as("no id: an older leaf, or one without --zk").isNull();
        assertThat(check(null, registered)).as("no id at all").isNull();
        assertThat(check("leaf-a", null)).as("a root without --zk").isNull();
        assertThat(check("leaf-b", slot0(MembershipView.Member.UNSEEN))).as("nothing registered here yet (a reused slot)")
                .isNull();
        assertThat(check("leaf-a", new MembershipView(true, List.of(), List.of(), new long[1], false)))
                .as("a slot beyond the view").isNull();
    }

    @Test
    void refusesAnotherIdThanTheNodeMembershipKnowsThereRegisteredOrGone() {
        assertThat(check("leaf-b", slot0(member(MembershipView.State.REGISTERED, "leaf-a"))))
                .contains("says it is node leaf-b").contains("membership knows node leaf-a").contains("registered");
        assertThat(check("leaf-b", slot0(member(MembershipView.State.GONE, "leaf-a"))))
                .as("the old leaf left, the slot still names it until a node registers there").contains("(gone)");
    }
}
