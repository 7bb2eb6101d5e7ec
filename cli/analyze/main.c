/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder: being written */
int main(void) { return 2; }
