/* See json_out.h. The escapes are cJSON's (print_string_ptr): " and \ get a backslash; backspace,
 * form feed, newline, carriage return and tab their two-letter forms; other bytes below 0x20
 * \u00xx in lower case; every other byte, DEL and UTF-8 included, is written as it is. */
#include "json_out.h"

#include <string.h>

size_t json_string(char *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    out[o++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        unsigned char c = *p;
        if (c > 31 && c != '"' && c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        out[o++] = '\\';
        switch (c) {
        case '"': out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '\b': out[o++] = 'b'; break;
        case '\f': out[o++] = 'f'; break;
        case '\n': out[o++] = 'n'; break;
        case '\r': out[o++] = 'r'; break;
        case '\t': out[o++] = 't'; break;
        default:
            memcpy(out + o, "u00", 3);
            out[o + 3] = hex[c >> 4];
            out[o + 4] = hex[c & 15];
            o += 5;
            break;
        }
    }
    out[o++] = '"';
    return o;
}
