"""Wire facts of OCPP 2.1 direct payment (spec 001 Direct payment and settlement), shared by the use cases
that judge it and the reference that plays it."""

CANCELED = "Canceled"   # PaymentStatusEnumType on the wire (the 2.1 schema); spec 001's prose writes "Cancelled"
CANCELLING = ("StopAuthorized", "EVConnectTimeout")   # the triggers of a cancelled paid transaction (rule 1)
