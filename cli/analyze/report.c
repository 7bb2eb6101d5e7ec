/* placeholder */ typedef int roce_placeholder_report_t;
