/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder: being written */
typedef int roce_placeholder_opcode_t;
