/* placeholder */ typedef int roce_placeholder_capread_t;
