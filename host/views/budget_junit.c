/* --junit (budget.h): the budget's result as JUnit XML, the form CI systems show natively (Jenkins,
 * GitLab, GitHub's test reporters): a test suite of the budget file, a test case per budget line,
 * failed with a sentence per breach, skipped when nothing of it could be checked. */
#include "budget_private.h"

#include <stdio.h>
#include <string.h>

/* Text into an attribute or an element: the five characters XML gives a meaning, as references.
 * The names are escaped already (base/escape.h: valid UTF-8, no control characters). */
static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') {
                fputc('?', out); /* not allowed in XML 1.0 at all */
            } else {
                fputc(*s, out);
            }
        }
    }
}

int budget_junit(const budget_t *b, FILE *out, const char *source)
{
    const budget_line_t *lines;
    size_t n = budget_lines(b, &lines), failures = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        failures += lines[i].n_breaches != 0;
        skipped += lines[i].n_breaches == 0 && lines[i].skipped[0] != '\0';
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuites name=\"aioprof-top budget\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
            n, failures, skipped);
    fputs("  <testsuite name=\"", out);
    xml_text(out, budget_path(b));
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", n, failures,
            skipped, budget_elapsed_s(b));
    fputs("    <properties>\n      <property name=\"source\" value=\"", out);
    xml_text(out, source ? source : "");
    fputs("\"/>\n      <property name=\"tool\" value=\"aioprof-top " AIOPROF_VERSION "\"/>\n    </properties>\n", out);
    char text[STATS_TEXT_MAX + 200];
    for (size_t i = 0; i < n; i++) {
        const budget_line_t *line = &lines[i];
        fputs("    <testcase classname=\"aioprof-top.budget\" name=\"", out);
        xml_text(out, line->label);
        fputs("\" time=\"0\">\n", out);
        if (line->n_breaches) {
            budget_breach_text(&line->breaches[0], text, sizeof text);
            fprintf(out, "      <failure type=\"budget\" message=\"%zu breach%s: ", line->n_breaches,
                    line->n_breaches == 1 ? "" : "es");
            xml_text(out, text);
            fputs("\">", out);
            for (size_t j = 0; j < line->n_breaches; j++) {
                budget_breach_text(&line->breaches[j], text, sizeof text);
                xml_text(out, text);
                fputc('\n', out);
            }
            fputs("</failure>\n", out);
        } else if (line->skipped[0]) {
            fputs("      <skipped message=\"", out);
            xml_text(out, line->skipped);
            fputs("\"/>\n", out);
        }
        if (line->n_breaches && line->skipped[0]) {
            fputs("      <system-out>not all checked: ", out);
            xml_text(out, line->skipped);
            fputs("</system-out>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
