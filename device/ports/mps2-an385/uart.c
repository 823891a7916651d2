/* CMSDK APB UART0: one byte of transmit buffer, one of receive. The hook's write callback must
 * never wait, so uart_write stops at the first byte the transmitter cannot take and reports how
 * many it took; aioprof_drain offers the rest again later. */
#include "board.h"

void uart_init(uint32_t baud)
{
    /* QEMU sends as fast as its chardev takes bytes whatever the divider; real hardware needs it
     * (at least 16) before the transmitter runs. */
    UART_BAUDDIV = BOARD_CPU_HZ / baud;
    UART_CTRL = UART_CTRL_TX_EN | UART_CTRL_RX_EN;
}

size_t uart_write(const uint8_t *data, size_t len)
{
    size_t n = 0;
    while (n < len && !(UART_STATE & UART_STATE_TX_FULL)) {
        UART_DATA = data[n++];
    }
    return n;
}

void uart_write_all(const uint8_t *data, size_t len)
{
    size_t n = 0;
    while (n < len) {
        n += uart_write(data + n, len - n);
    }
}

int uart_read(void)
{
    if (!(UART_STATE & UART_STATE_RX_FULL)) {
        return -1;
    }
    return (int)(UART_DATA & 0xFFu);
}
