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
 * and it refuses another id than the one registered there. One leaf under two spellings of its address
 * (review42b finding 1): the slot whose connection claimed its node first keeps it, a listed slot takes a
 * registration membership placed in a slot never ready, and a slot filled at run time waits for the
 * listed slots' first dials.
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

    private static LeafIdentity.SlotFacts listed(String claimed, boolean everReady, boolean dialSettled) {
        return new LeafIdentity.SlotFacts("127.0.0.1:9000", claimed, everReady, true, dialSettled);
    }

    private static LeafIdentity.SlotFacts joined(String claimed, boolean everReady) {
        return new LeafIdentity.SlotFacts("myhost:9001", claimed, everReady, false, true);
    }

    private static MembershipView view(MembershipView.Member... members) {
        return new MembershipView(true, List.of(members), List.of(), new long[1], false);
    }

    /**
     * Review42b finding 1: one leaf under two spellings. Slot 0 is listed as 127.0.0.1:9000, slot 1 was filled
     * at run time for the leaf's registration as myhost:9001 (resolving elsewhere, or registered before the
     * listed slot's connection could say whose it is).
     */
    @Test
    void aHandshakeNamingANodeAnotherSlotsOpenConnectionNamedIsRefusedNamingBothSlots() {
        MembershipView atJoined = view(MembershipView.Member.UNSEEN, member(MembershipView.State.REGISTERED, "leaf-a"));

        assertThat(LeafIdentity.judge(1, "leaf-a",
                List.of(listed("leaf-a", true, true), joined(null, false)), atJoined))
                .as("the listed slot has it").isInstanceOfSatisfying(LeafIdentity.Verdict.Refuse.class,
                        refuse -> assertThat(refuse.why()).contains("says it is node leaf-a, which leaf slot 0")
                                .contains("not used as slot 1"));
        assertThat(LeafIdentity.judge(0, "leaf-a",
                List.of(listed(null, false, true), joined("leaf-a", false)), atJoined))
                .as("the other way round: the first to claim keeps it")
                .isInstanceOf(LeafIdentity.Verdict.Refuse.class);
        assertThat(LeafIdentity.judge(0, "leaf-b",
                List.of(listed(null, false, true), joined("leaf-a", false)), atJoined))
                .as("another node").isEqualTo(new LeafIdentity.Verdict.Accept());
        assertThat(LeafIdentity.judge(1, "",
                List.of(listed("", true, true), joined(null, false)), atJoined))
                .as("no id: nothing tells").isEqualTo(new LeafIdentity.Verdict.Accept());
    }

    @Test
    void aListedSlotAnsweringAsTheNodeMembershipPlacedInANeverReadySlotTakesItsRegistration() {
        MembershipView atJoined = view(MembershipView.Member.UNSEEN, member(MembershipView.State.REGISTERED, "leaf-a"));

        assertThat(LeafIdentity.judge(0, "leaf-a",
                List.of(listed(null, false, false), joined(null, false)), atJoined))
                .isEqualTo(new LeafIdentity.Verdict.Relocate(NodeId.of("leaf-a"), 1));
        assertThat(LeafIdentity.judge(0, "leaf-a",
                List.of(listed(null, false, false), joined(null, true)), atJoined))
                .as("the other slot served it: kept there").isEqualTo(new LeafIdentity.Verdict.Accept());
        assertThat(LeafIdentity.judge(0, "leaf-a", List.of(listed(null, false, false), joined(null, false)),
                view(member(MembershipView.State.REGISTERED, "leaf-z"), member(MembershipView.State.REGISTERED,
                        "leaf-a")))).as("membership knows another node at the listed slot: a stranger there")
                .isInstanceOfSatisfying(LeafIdentity.Verdict.Refuse.class,
                        refuse -> assertThat(refuse.why()).contains("membership knows node leaf-z"));
        assertThat(LeafIdentity.judge(0, "leaf-a",
                List.of(listed(null, false, false), joined(null, false)), null))
                .as("no membership").isEqualTo(new LeafIdentity.Verdict.Accept());
    }

    @Test
    void aSlotFilledAtRunTimeWaitsForTheListedSlotsFirstDials() {
        MembershipView atJoined = view(MembershipView.Member.UNSEEN, member(MembershipView.State.REGISTERED, "leaf-a"));

        assertThat(LeafIdentity.judge(1, "leaf-a",
                List.of(listed(null, false, false), joined(null, false)), atJoined))
                .as("the listed slot has not answered: it may be this leaf")
                .isInstanceOfSatisfying(LeafIdentity.Verdict.Refuse.class,
                        refuse -> assertThat(refuse.why()).contains("waits until listed leaf slot 0"));
        assertThat(LeafIdentity.judge(1, "leaf-a",
                List.of(listed(null, false, true), joined(null, false)), atJoined))
                .as("it answered as another node, or failed").isEqualTo(new LeafIdentity.Verdict.Accept());
        assertThat(LeafIdentity.judge(1, "leaf-a",
                List.of(listed(null, false, false), joined(null, true)), atJoined))
                .as("served before: nothing to wait for").isEqualTo(new LeafIdentity.Verdict.Accept());
    }
}
