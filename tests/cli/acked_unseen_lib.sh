# SPDX-License-Identifier: GPL-2.0-or-later
# acked_unseen_lib.sh - sourced (after testlib.sh) by analyze_acked_unseen.sh and
# analyze_acked_unseen_out.sh: their capture, the editcap reproduction of "ACKed unseen".
#   cut_ack_capture ROCE-GEN   $tmp/cd.pcap: a roce-gen RC WRITE capture (1 QP, 40 messages
#                              of 4096 bytes, seed 9); $tmp/cd2.pcap: the same without
#                              frames 5-6 (the ACK of PSN 3 and the WRITE_FIRST of PSN 4:
#                              what a mirror port dropping frames does; the ACK of PSN 7
#                              then acknowledges PSN 4).  Status 1, with a failed check,
#                              when editcap is missing (scripts/setup.sh installs tshark).
cut_ack_capture() {
	if ! command -v editcap >/dev/null; then
		bad "editcap not installed (scripts/setup.sh installs tshark)"
		return 1
	fi
	"$1" -q -w "$tmp/cd.pcap" --qps 1 --messages 40 --msg-size 4096 -s 9 ||
		bad "roce-gen failed"
	editcap -r "$tmp/cd.pcap" "$tmp/cd2.pcap" 1-4 7-200 >/dev/null 2>&1 ||
		bad "editcap failed"
}
