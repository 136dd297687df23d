#!/usr/bin/env python3
"""Writes a SubmissionPayload built with Python's protobuf library to standard output.

usage: make_payload.py <directory with submission_contract_pb2.py> <rolling start interval of today>

The payload (all values are checked by SubmissionTests.WireCompatibilityTests):
  key 1: key_data 0x11 * 16, TRL 6, DSOS -2, start = today - 1 day, period 144, report type CONFIRMED_TEST
  key 2: key_data 0x22 * 16, DSOS 3 only, start = today - 2 days, period 144
  key 3: key_data 0x33 * 16, TRL 2 only, start = today - 3 days, period 100, report type SELF_REPORT
  origin DE, visited countries FR and IT, consent to federation, rapid test, 500 bytes of padding.
"""
import sys

sys.path.insert(0, sys.argv[1])
import submission_contract_pb2 as contract  # noqa: E402 (generated at test time by protoc)

today = int(sys.argv[2])
payload = contract.Payload()
k = payload.keys.add()
k.key_data = bytes([0x11] * 16)
k.transmission_risk_level = 6
k.days_since_onset_of_symptoms = -2
k.rolling_start_interval_number = today - 144
k.rolling_period = 144
k.report_type = contract.Key.CONFIRMED_TEST
k = payload.keys.add()
k.key_data = bytes([0x22] * 16)
k.days_since_onset_of_symptoms = 3
k.rolling_start_interval_number = today - 2 * 144
k = payload.keys.add()
k.key_data = bytes([0x33] * 16)
k.transmission_risk_level = 2
k.rolling_start_interval_number = today - 3 * 144
k.rolling_period = 100
k.report_type = contract.Key.SELF_REPORT
payload.visited_countries.extend(["FR", "IT"])
payload.origin = "DE"
payload.consent_to_federation = True
payload.submission_type = contract.RAPID_TEST
payload.request_padding = bytes(500)
sys.stdout.buffer.write(payload.SerializeToString())
