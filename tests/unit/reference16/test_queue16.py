"""The transaction-message queue (rules Q1-Q4; spec 002 behaviour rules 1-2): no sockets, no clock."""

from harness.reference.v16.queue import TransactionQueue


def _queue(*actions):
    queue = TransactionQueue()
    for action in actions:
        queue.push(action, {"n": action})
    return queue


def test_messages_leave_in_the_order_they_were_queued_one_at_a_time():
    queue = _queue("StartTransaction", "MeterValues", "StopTransaction")
    sent = []
    while queue.head() is not None:
        assert queue.wait(0.0) == 0.0
        sent.append(queue.delivered().action)
    assert sent == ["StartTransaction", "MeterValues", "StopTransaction"] and queue.wait(0.0) is None


def test_retry_n_waits_the_interval_times_the_transmissions_so_far():
    queue = _queue("StopTransaction", "MeterValues")
    now, schedule = 100.0, []
    for _ in range(2):
        assert queue.failed(now, attempts=3, retry_interval=10) is False
        schedule.append(queue.head().not_before - now)
        now = queue.head().not_before
    assert schedule == [10, 20]
    assert queue.wait(now - 5) == 5 and queue.head().action == "StopTransaction"


def test_after_the_attempts_the_message_is_discarded_and_the_next_goes():
    queue = _queue("StopTransaction", "MeterValues")
    assert [queue.failed(0.0, attempts=3, retry_interval=1) for _ in range(3)] == [False, False, True]
    assert [d.action for d in queue.discarded] == ["StopTransaction"]
    assert queue.head().action == "MeterValues" and queue.head().transmissions == 0


def test_a_single_attempt_discards_at_once_and_offline_counts_nothing():
    queue = _queue("MeterValues")
    assert queue.head().transmissions == 0          # waiting offline is no transmission
    assert queue.failed(0.0, attempts=0, retry_interval=5) is True and len(queue) == 0
