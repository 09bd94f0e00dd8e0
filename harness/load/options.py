"""The options every process of a load run takes alike: the command line's, and Locust's (its master
hands them to the workers)."""

from __future__ import annotations

from harness.load.mix import Mix


def add_shared_arguments(parser) -> None:
    """The options every process of a run takes alike (a Locust master hands them to its workers)."""
    parser.add_argument("--protocol", default="ocpp2.0.1", help="ocpp1.6, ocpp2.0.1 or ocpp2.1 (default ocpp2.0.1)")
    parser.add_argument("--seed", type=int, default=1, help="the roster's seed: the same seed, the same stations")
    parser.add_argument("--heartbeat", type=float, default=None,
                        help="seconds between a station's Heartbeats (default: the interval the CSMS gives at boot)")
    parser.add_argument("--authorize-per-hour", type=float, default=0.0,
                        help="Authorize without charging, per station per hour (default 0)")
    parser.add_argument("--transactions-per-hour", type=float, default=0.0,
                        help="charging sessions per station per hour (default 0)")
    parser.add_argument("--transaction-seconds", type=float, default=600.0, help="a session's length (default 600)")
    parser.add_argument("--meter-interval", type=float, default=60.0,
                        help="seconds between meter values while charging, 0 for none (default 60)")
    parser.add_argument("--call-timeout", type=float, default=30.0, help="seconds a CALL waits for its answer")
    parser.add_argument("--interval", type=float, default=5.0, help="the report's time resolution in seconds")


def mix_of(args) -> Mix:
    return Mix(heartbeat=args.heartbeat, authorize_per_hour=args.authorize_per_hour,
               transactions_per_hour=args.transactions_per_hour, transaction_seconds=args.transaction_seconds,
               meter_interval=args.meter_interval)
